"""The single-triple patterns of the shapes' SPARQL queries, compiled for streaming
(:mod:`ldids.shacl.streamed`).

A SPARQL target or constraint that selects from one statement at a time is a union of
single-triple patterns under FILTER and BIND (SHACL-AF §5.1): each is a :class:`Branch`.
Its FILTERs are split into what is tried apart, cheapest first: a ``REGEX(STR(?v), "...")``
the group of rules tries before its memo (the *gate*), the conjuncts on the predicate alone
(remembered per predicate), those on one variable's kind (remembered per kind:
:func:`~ldids.shacl.expression.kind_variable`); what is left is compiled into closures
(:mod:`ldids.shacl.expression`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from rdflib.term import Literal, Node, Variable

from ldids.passes.decision import evict_oldest_half
from ldids.shacl import plan_cache
from ldids.shacl.algebra import Op
from ldids.shacl.expression import (
    EvaluationError,
    Expression,
    UncompilableError,
    Value,
    compile_conjunction,
    compile_expression,
    effective_boolean,
    kind,
    kind_variable,
)
from ldids.shacl.expression import (
    others as _others,
)
from ldids.shacl.value import NotStreamableError, Term, Triple, as_term, from_rdflib

__all__ = ["MEMO_LIMIT", "Branch", "KindTest", "query_branches"]

#: Entries of each memo of the terms a test has seen, and of the keys the compiled selection
#: has (ldids.dumps.validation): bounded, constant memory.
MEMO_LIMIT = 100_000


@dataclass
class Branch:
    """One single-triple pattern of a SPARQL query, with its FILTERs and BINDs in order."""

    #: Per position of a statement: a variable's name (str) or the term it must be.
    pattern: tuple[str | Term, str | Term, str | Term]
    steps: list[tuple[bool, Expression, str]] = field(default_factory=list)  # (is a FILTER, expression, BIND's name)
    #: (position, regular expression) the text of a term there must match for the FILTERs to
    #: hold: tried before the branch is, and left out of its FILTER when it is a conjunct of
    #: it (kept when a conjunct only implies it: :func:`_implied`).
    gate: tuple[int, str] | None = None
    used: set[str] = field(default_factory=set)
    #: The FILTERs' conjuncts and the BINDs, as parsed, until :meth:`compile`.
    raw: list[tuple[bool, list[object], str]] = field(default_factory=list)
    #: The conjuncts on the predicate variable alone, when the rest never mention it: tried
    #: on a statement's predicate apart, so what the rest finds is remembered by the other terms.
    predicate_test: Callable[[Term], bool] | None = None
    #: (position, test) of the conjuncts that look only at the kind of a variable's term
    #: (:func:`~ldids.shacl.expression.kind_variable`): evaluated once per kind, tried first.
    kind_tests: list[tuple[int, KindTest]] = field(default_factory=list)
    #: The position of the focus node, when the pattern and what is left of the FILTERs
    #: ask nothing more: the statement gives it once the kind tests hold.
    direct: int | None = None
    #: (position, regular expression) of the conjuncts ``!REGEX(text, "const")`` on the text
    #: of a term of the pattern (:func:`_excluded`): where the text there matches one, the
    #: branch selects nothing. Kept in the FILTER; the compiled selection reads them.
    excluded: list[tuple[int, str]] = field(default_factory=list)

    def compile(self, focus: str = "this") -> None:
        """Compile the FILTERs and BINDs, once the whole query is read."""
        self.used.add(focus)
        filters = [conjuncts for is_filter, conjuncts, _ in self.raw if is_filter]
        binds = {name: parts[0] for is_filter, parts, name in self.raw if not is_filter}
        required = [
            (conjuncts, part, found)
            for conjuncts in filters
            for part in conjuncts
            for found in _required(part, self.pattern)
        ]
        if required:
            # Tried before the branch is (the rule's gate): true whenever the FILTER is
            # evaluated, so left out of it (true && X is X, errors included: SPARQL 1.1 §17.2).
            conjuncts, part, self.gate = required[0]
            conjuncts.remove(part)
        else:
            # Or a gate a conjunct implies (through the BINDs), kept in the FILTER: the
            # conjunct says more than its gate does.
            implied = [
                found for conjuncts in filters for part in conjuncts if (found := _implied(part, binds, self.pattern))
            ]
            self.gate = implied[0] if implied else None
        self.excluded = [
            found for conjuncts in filters for part in conjuncts if (found := _excluded(part, binds, self.pattern))
        ]
        predicate = self.pattern[1]
        bound = {name for is_filter, _, name in self.raw if not is_filter}
        if (
            isinstance(predicate, str)
            and predicate != focus
            and self.pattern.count(predicate) == 1
            and predicate not in bound
        ):
            alone = [part for conjuncts in filters for part in conjuncts if _names(part) == {predicate}]
            rest: set[str] = set()
            for is_filter, conjuncts, _ in self.raw:
                for part in conjuncts:
                    if not (is_filter and part in alone):
                        _variables(part, rest)
            if alone and predicate not in rest:
                for conjuncts in filters:
                    conjuncts[:] = [part for part in conjuncts if part not in alone]
                self.predicate_test = _PredicateTest(compile_conjunction(alone), predicate)
                self.used.discard(predicate)
        self._take_kind_tests(filters, bound)
        try:
            self.steps = [
                (is_filter, compile_conjunction(parts) if is_filter else compile_expression(parts[0]), name)
                for is_filter, parts, name in self.raw
                if parts or not is_filter  # a FILTER left with no conjunct is true
            ]
        except UncompilableError as why:
            raise NotStreamableError(f"{why} is not compiled for streaming") from why
        names = [want for want in self.pattern if isinstance(want, str)]
        if not self.steps and len(set(names)) == 3 and focus in names:
            self.direct = names.index(focus)

    def _take_kind_tests(self, filters: list[list[object]], bound: set[str]) -> None:
        """Move the conjuncts on one pattern variable's kind out of the FILTERs: every
        conjunct of a FILTER must be true for it to hold, errors counting as false (SPARQL 1.1
        §17.2), so the order they are tried in does not change what is selected."""
        for conjuncts in filters:
            for part in list(conjuncts):
                name = kind_variable(part)
                if name is None or name in bound or name not in self.pattern:
                    continue
                conjuncts.remove(part)
                try:
                    test = KindTest(compile_conjunction([part]), name)
                except UncompilableError as why:
                    raise NotStreamableError(f"{why} is not compiled for streaming") from why
                self.kind_tests.append((self.pattern.index(name), test))

    def positions(self) -> tuple[int, ...]:
        """The positions of a statement that decide what this pattern selects: those of its
        constants (the predicate aside: rules are looked up by it) and of the variables used."""
        names = [want for want in self.pattern if isinstance(want, str)]
        return tuple(
            index
            for index, want in enumerate(self.pattern)
            if (not isinstance(want, str) and index != 1)
            or (isinstance(want, str) and (want in self.used or names.count(want) > 1))
        )

    def focus_position(self, focus: str = "this") -> int | None:
        """The position of the term that is the focus node, when the pattern binds it (a BIND
        may not bind a variable the pattern binds: SPARQL 1.1 §18.2.1)."""
        found = [index for index, want in enumerate(self.pattern) if isinstance(want, str) and want == focus]
        return found[0] if found else None

    def predicate(self) -> Term | None:
        return None if isinstance(self.pattern[1], str) else self.pattern[1]

    def select(self, triple: Triple, focus: str = "this") -> Term | None:
        """The focus node this statement gives, if it gives one (SPARQL 1.1 §18.5)."""
        for position, test in self.kind_tests:
            if not test(triple[position]):
                return None
        if self.direct is not None:
            return triple[self.direct]
        solution: dict[str, Value] = {}
        for want, have in zip(self.pattern, triple, strict=True):
            if isinstance(want, str):
                if solution.setdefault(want, have) != have:
                    return None
            elif want != have:
                return None
        for is_filter, expression, name in self.steps:
            try:
                if is_filter:
                    if not effective_boolean(expression(solution)):
                        return None
                else:
                    solution[name] = expression(solution)
            except EvaluationError:
                if is_filter:  # an error in a FILTER is false; in a BIND it leaves the variable unbound
                    return None
        found = solution.get(focus)
        return None if found is None else as_term(found)


def _pattern_term(term: Node) -> str | Term:
    return str(term) if isinstance(term, Variable) else from_rdflib(term)


def _branches(node: Op) -> list[Branch]:
    name = node.name
    if name in ("SelectQuery", "Distinct", "Project"):
        return _branches(node["p"])
    if name == "Union":
        return _branches(node["p1"]) + _branches(node["p2"])
    if name in ("Filter", "Extend"):
        inner = _branches(node["p"])
        expr = node["expr"]
        for branch in inner:
            _variables(expr, branch.used)
            if name == "Extend":
                branch.raw.append((False, [expr], str(node["var"])))
            else:
                branch.raw.append((True, _conjuncts(expr), ""))
        return inner
    if name == "BGP" and len(node["triples"]) == 1:
        pattern = tuple(_pattern_term(term) for term in node["triples"][0])
        return [Branch(pattern)]  # type: ignore[arg-type]
    raise NotStreamableError(f"a SPARQL {name} is not one statement at a time")


def _variables(expr: object, into: set[str]) -> None:
    if isinstance(expr, Variable):
        into.add(str(expr))
    elif isinstance(expr, Op):
        for value in expr.values():
            _variables(value, into)
    elif isinstance(expr, list | tuple):
        for value in expr:
            _variables(value, into)


def _names(expr: object) -> set[str]:
    found: set[str] = set()
    _variables(expr, found)
    return found


class _PredicateTest:
    """The conjuncts of a FILTER on the predicate variable alone, remembered per predicate."""

    def __init__(self, test: Expression, name: str) -> None:
        self.test, self.name = test, name
        self.known: dict[object, bool] = {}

    def key(self, term: Term) -> object:
        return term

    def __call__(self, term: Term) -> bool:
        key = self.key(term)
        found = self.known.get(key)
        if found is None:
            try:
                found = effective_boolean(self.test({self.name: term}))
            except EvaluationError:
                found = False
            if len(self.known) >= MEMO_LIMIT:
                evict_oldest_half(self.known)
            self.known[key] = found
        return found


class KindTest(_PredicateTest):
    """A conjunct on a variable's kind alone, remembered per kind (few in any dump)."""

    def key(self, term: Term) -> object:
        return kind(term)


def _conjuncts(expr: object) -> list[object]:
    if isinstance(expr, Op) and expr.name == "ConditionalAndExpression":
        return [part for top in [expr["expr"], *(_others(expr))] for part in _conjuncts(top)]
    return [expr]


def _required(expr: object, pattern: tuple[str | Term, ...]) -> Iterator[tuple[int, str]]:
    """A REGEX(STR(?v), "const") on a variable of the pattern: a necessary condition."""
    if isinstance(expr, Op) and expr.name == "Builtin_REGEX" and "flags" not in expr:
        text, regex = expr["text"], expr["pattern"]
        if isinstance(regex, Literal) and isinstance(text, Op) and text.name == "Builtin_STR":
            name = str(text["arg"]) if isinstance(text["arg"], Variable) else None
            if name is not None and name in pattern:
                yield pattern.index(name), str(regex)


def _implied(expr: object, binds: dict[str, object], pattern: tuple[str | Term, ...]) -> tuple[int, str] | None:
    """(position, regular expression) the text of the term there matches whenever the FILTER
    conjunct ``expr`` is true, found through the BINDs: ``?v != ""`` where ?v is bound to an
    ``IF`` whose branches are ``""`` or go on to ``REGEX(STR(?x), "const")`` tests of one
    variable of the pattern. An ``IF`` is its second argument where its first is true, its
    third where it is false, an error where it is one (SPARQL 1.1 §17.4.1.2); a BIND that
    fails leaves ?v unbound, and ``!=`` on an unbound variable is an error, which makes the
    FILTER false (§17.2). None where no such test is found."""
    if not (isinstance(expr, Op) and expr.name == "RelationalExpression" and expr["op"] == "!="):
        return None
    if expr["other"] != Literal("") or not isinstance(expr["expr"], Variable):
        return None
    found = _not_empty(expr["expr"], binds, pattern, set())
    if not found or len({position for position, _ in found}) != 1:
        return None
    return found[0][0], "|".join(f"({regex})" for _, regex in found)


def _not_empty(
    expr: object, binds: dict[str, object], pattern: tuple[str | Term, ...], seen: set[str]
) -> list[tuple[int, str]] | None:
    """REGEX tests one of which holds when ``expr`` evaluates to something other than ``""``."""
    if isinstance(expr, Variable):
        name = str(expr)
        if name not in binds or name in seen:
            return None
        return _not_empty(binds[name], binds, pattern, seen | {name})
    if not (isinstance(expr, Op) and expr.name == "Builtin_IF"):
        return None
    found: list[tuple[int, str]] = []
    if expr["arg2"] != Literal(""):
        test = _regex_test(expr["arg1"], binds, pattern)
        if test is None:
            return None
        found.append(test)
    if expr["arg3"] != Literal(""):
        rest = _not_empty(expr["arg3"], binds, pattern, seen)
        if rest is None:
            return None
        found += rest
    return found


def _excluded(expr: object, binds: dict[str, object], pattern: tuple[str | Term, ...]) -> tuple[int, str] | None:
    """(position, regular expression) when the FILTER conjunct ``expr`` is ``!REGEX(...)``
    of :func:`_regex_test`'s form: where the text of the term there matches, the REGEX is
    true or an error (it takes no IRI, a literal of another datatype, or an unbound
    variable), so the conjunct, and the FILTER, is false or an error: no solution (SPARQL
    1.1 §17.2, §17.4.1.1, §17.4.3.14)."""
    if not (isinstance(expr, Op) and expr.name == "UnaryNot"):
        return None
    return _regex_test(expr["expr"], binds, pattern)


def _regex_test(expr: object, binds: dict[str, object], pattern: tuple[str | Term, ...]) -> tuple[int, str] | None:
    """A ``REGEX(text, regex)`` with no flags, whose text is STR of a variable of the pattern
    (or the variable: REGEX takes only a string literal) and whose regex is a constant, each
    perhaps through a BIND: (the variable's position, the regex)."""
    if not (isinstance(expr, Op) and expr.name == "Builtin_REGEX") or "flags" in expr:
        return None
    text, regex = _through(expr["text"], binds), _through(expr["pattern"], binds)
    if isinstance(text, Op) and text.name == "Builtin_STR":
        text = text["arg"]
    if not isinstance(regex, Literal) or not isinstance(text, Variable) or str(text) not in pattern:
        return None
    return pattern.index(str(text)), str(regex)


def _through(expr: object, binds: dict[str, object]) -> object:
    """What a variable bound by a BIND is bound to, followed a few times."""
    for _ in range(8):
        if not (isinstance(expr, Variable) and str(expr) in binds):
            break
        expr = binds[str(expr)]
    return expr


def query_branches(text: str) -> list[Branch]:
    branches = _branches(plan_cache.query(text))
    for branch in branches:
        branch.compile()
    return branches
