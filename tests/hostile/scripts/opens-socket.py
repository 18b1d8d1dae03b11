# Hostile script: tries to reach the network (a DNS-free TCP connect and a UDP send).
import socket

names = ["calculated_metrics.csv", "unusual_movements.csv", "financial_trends.svg",
         "investment_analysis.md", "analysis_run.json"]
s = socket.create_connection(("1.1.1.1", 80), timeout=3)
s.sendall(b"GET / HTTP/1.0\r\n\r\n")
print("CONNECTED")
