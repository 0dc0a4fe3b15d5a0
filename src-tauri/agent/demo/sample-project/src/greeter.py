"""Greets people."""


def greet(name):
    # TODO: fix the typo in the greeting
    return f"Helo, {name}!"


def farewell(name):
    return f"Goodbye, {name}."
