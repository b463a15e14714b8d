"""The built-in property catalogue (``catalogue``), written with the public ``rule603.prop`` API."""
