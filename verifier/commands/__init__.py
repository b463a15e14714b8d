"""The ``rule603`` subcommands, one module each (``rule603 rule`` is :mod:`.rule`).

Each module gives its subparser its arguments (``add_arguments(parser)``) and runs the command
(``run(args) -> ExitCode``); :mod:`.common` holds what several share (option types, output
files, the progress display, the exit statuses).  The command line (:mod:`rule603.cli`) imports
a command's module only when that command runs, so a committed report's fingerprint counts the
module of the command that writes it and not every command's (see ``_internal/fingerprint.py``).
"""
