"""Validates JSON documents against a JSON Schema (draft 2020-12) with the `jsonschema` package.

usage: python3 validate_json_schema.py SCHEMA FILE...   (exit 0 all valid, 1 any invalid,
3 the jsonschema package is not installed)
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("the jsonschema package is not installed", file=sys.stderr)
    sys.exit(3)

schema = json.load(open(sys.argv[1], encoding="utf-8"))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
bad = 0
for path in sys.argv[2:]:
    doc = json.load(open(path, encoding="utf-8"))
    for error in validator.iter_errors(doc):
        bad += 1
        where = "/".join(str(p) for p in error.absolute_path)
        print(f"{path}: /{where}: {error.message}", file=sys.stderr)
print(f"{len(sys.argv) - 2} documents, {bad} errors")
sys.exit(1 if bad else 0)
