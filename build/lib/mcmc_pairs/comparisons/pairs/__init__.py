"""One module per pair: its data, its two sides, what is compared and the exact answer."""
