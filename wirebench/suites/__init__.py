"""The suites: one module each, on the suite contract (wirebench/suite.py), listed in
wirebench/registry.py. A suite imports the floors below it and never the registry."""
