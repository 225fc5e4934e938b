"""One module per ``blanket`` subcommand; each defines ``register(subparsers)``."""
