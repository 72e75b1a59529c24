from ldids.cli import run

run()
