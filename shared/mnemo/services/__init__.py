"""Use cases. They depend on ports only; mnemo.bootstrap wires the adapters."""
