"""Adapters: the concrete back ends behind the ports. Only mnemo.bootstrap names them."""
