"""Measuring: the METG sweep and its math, the machine's peak, campaigns (a set of runs stored
together), their analysis, each kernel's counted work, traced runs and the strong-scaling
prediction."""
