#!/usr/bin/env python3
"""Checks perf's JSON outputs against their JSON Schemas in docs/schemas.

    validate-json.py FILE...          (a file may be - for stdin)

Each document names its schema ("schema": "perf.<name>/<N>", or
otherData.schema for a timeline); it is validated against
docs/schemas/perf.<name>-<N>.schema.json with python3-jsonschema. Prints one
line per file; exits 1 at the first document that has no schema, names an
unknown one or does not validate.
"""
import json
import os
import sys

import jsonschema

SCHEMAS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "docs", "schemas")


def schema_of(document):
    if isinstance(document, dict):
        if isinstance(document.get("schema"), str):
            return document["schema"]
        other = document.get("otherData")
        if isinstance(other, dict) and isinstance(other.get("schema"), str):
            return other["schema"]
    return None


def main(paths):
    for path in paths:
        text = sys.stdin.read() if path == "-" else open(path).read()
        document = json.loads(text)
        name = schema_of(document)
        if not name:
            sys.exit("%s: error: names no schema" % path)
        schema_path = os.path.join(SCHEMAS, name.replace("/", "-") + ".schema.json")
        if not os.path.exists(schema_path):
            sys.exit("%s: error: unknown schema '%s' (no %s)" % (path, name, schema_path))
        with open(schema_path) as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(document),
                        key=lambda e: list(e.absolute_path))
        if errors:
            e = errors[0]
            sys.exit("%s: error: %s at /%s (%d errors)" % (
                path, e.message, "/".join(str(p) for p in e.absolute_path), len(errors)))
        print("%s: valid %s" % (path, name))


if __name__ == "__main__":
    main(sys.argv[1:])
