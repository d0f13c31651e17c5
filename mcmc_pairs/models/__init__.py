"""PyMC twins: one module per example, build_model(data) -> pm.Model."""
