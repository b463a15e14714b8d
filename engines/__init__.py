"""Game engines that emit rule603 traces: the reference engine, its mutants, adapters."""
