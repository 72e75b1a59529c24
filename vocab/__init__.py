"""The ldids vocabulary in Turtle: a data package (see ldids.resources and ldids.namespace)."""
