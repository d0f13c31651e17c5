"""PyMC models of posteriordb's posteriors, written from their Stan models (data: pairdata)."""
