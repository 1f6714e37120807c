"""Errors every part of Arbiter raises for bad input; the CLI prints them as one line."""


class ArbiterError(ValueError):
    """Bad input a person can fix: the message is one line that names the problem."""


class RulesError(ArbiterError):
    """A rules object with an unknown game, key or value."""


class StateError(ArbiterError):
    """A state that cannot exist on a real table (a bigger disc on a smaller one, 49 seeds...)."""


class MoveError(ArbiterError):
    """A move that is not well formed for its game."""


class IllegalMove(ArbiterError):
    """A well-formed move the rules forbid in this position; the message is the reason."""
