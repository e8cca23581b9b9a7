"""One module per `taskbench` subcommand; each has `add_parser(subparsers, common)` and `main(args, ctx)`."""
