"""One module per `taskbench` subcommand; each has `add_parser(subparsers)` and `main(args, ctx)`."""
