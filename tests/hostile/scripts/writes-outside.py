# Hostile script: tries to write outside /mnt/data and to read secrets, then reports what worked.
import os
import sys

names = ["calculated_metrics.csv", "unusual_movements.csv", "financial_trends.svg",
         "investment_analysis.md", "analysis_run.json"]
HOST_PATHS = []  # the test puts real host paths here
escaped = []
for path in HOST_PATHS + ["/etc/vouch-escape", "/root/vouch-escape", "/vouch-escape",
                            "/usr/vouch-escape", os.path.expanduser("~/vouch-escape")]:
    try:
        with open(path, "w") as f:
            f.write("escaped")
        escaped.append(path)
    except OSError as e:
        print(f"refused {path}: {e}", file=sys.stderr)
for secret in ["/etc/shadow", "/etc/passwd", "/root/.bash_history", "/proc/1/environ"]:
    try:
        print(f"read {secret}: {open(secret).read(40)!r}", file=sys.stderr)
    except OSError as e:
        print(f"hidden {secret}: {e}", file=sys.stderr)
print("environment:", sorted(os.environ), file=sys.stderr)
sys.exit(3)
