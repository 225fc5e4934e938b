"""One module per ``blanket`` subcommand; each declares ``PARSER`` (its ``add_parser`` keywords), ``add_arguments(p)``
and ``run(args)``, and ``reports/cli.py`` builds its parser from them.

Building the parser imports every command module (``reports/cli.py``), so a command module imports only the
standard library and cheap helpers at module level and loads its engines (ball-arithmetic kernels, the sympy
registry of results, certificates, figures) inside ``run``: ``blanket --help`` and a one-dataset ``blanket delta``
start in a fraction of a second instead of loading sympy and every engine.  This is the one place where imports
sit inside functions by design; elsewhere they do so only to load an optional dependency (Dask, dp_accounting,
matplotlib, hypothesis), and say which.  Never to break an import cycle: ``tests/test_layers.py`` reads
function-level imports too, and fails on a circle.
"""
