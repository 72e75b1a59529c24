"""The shapes whose targets and constraints are local to one statement, checked statement by
statement as a dump streams by (DESIGN.md §6b).

The checks are derived from the shapes graph when a run starts; no pattern or target is
written here. :func:`plan` reads each node shape and decides whether it is *streamable*:

- its targets select focus nodes from one statement at a time: ``sh:targetSubjectsOf``,
  ``sh:targetObjectsOf``, or a SPARQL-based target (SHACL-AF §5.1) whose query is a union of
  single-triple patterns under FILTER and BIND, which is the union of what it selects from
  each statement alone;
- its constraints look at one value node at a time (:data:`_VALUE_LOCAL`, SHACL §4), with
  ``sh:or``/``sh:and``/``sh:not``/``sh:xone`` over shapes made of such constraints;
- its property shapes and SPARQL constraints (SHACL §5) see only the statement that made the
  focus node: a predicate path equal to a ``sh:targetSubjectsOf`` predicate, a query that is
  one triple pattern with ``$this`` as that predicate's subject.

Any other shape is not streamable and :class:`Plan` says which and why, so a caller reports
it (or runs it whole-graph); none is skipped silently.

The plan is compiled, once, into plain Python over pyoxigraph's terms: ``sh:pattern`` and
``REGEX`` become Python regular expressions (:mod:`ldids.shacl.pyregex`), FILTER and BIND
expressions closures (:mod:`ldids.shacl.expression`). Each single-triple pattern
(:mod:`ldids.shacl.branch`) is a *rule* that depends on some positions of a statement
(those of the variables it uses, and its constants); rules that depend on the same
positions share one bounded memo of what they found, keyed by the terms there, and a rule
with a constant predicate is looked at on that predicate's statements only. A regular
expression that a FILTER requires of a variable's text (a conjunct ``REGEX(STR(?v),
"...")``) is tried before the memo: most terms of a dump are no identifier, and are turned
away by one regular expression.
"""

from __future__ import annotations

import contextlib
import functools
import operator
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import pyoxigraph as ox
from rdflib import Graph
from rdflib.namespace import RDF, RDFS, SH
from rdflib.term import Literal, Node, URIRef

from ldids.passes.decision import evict_oldest_half
from ldids.shacl import plan_cache
from ldids.shacl.branch import MEMO_LIMIT, Branch, KindTest, query_branches
from ldids.shacl.dfa import UnsupportedError
from ldids.shacl.expression import kind
from ldids.shacl.pyregex import UntranslatableError, to_python
from ldids.shacl.value import (
    Holding,
    NotStreamableError,
    Term,
    Triple,
    ValueCheck,
    from_rdflib,
    holding,
    kinds_of,
    pattern_of,
    to_rdflib,
    value_checks,
)

__all__ = ["MEMO_LIMIT", "Finding", "NotStreamableError", "Plan", "Probe", "from_rdflib", "plan", "to_rdflib"]

#: (focus, path, value, shape, component, message, severity) of one result, as a shape says
#: it; the focus and value nodes as pyoxigraph read them, made rdflib terms only when a
#: result is reported (:meth:`Plan.findings`, ldids.dumps.validation): most are not.
Finding = tuple[Term, "Node | None", Term, Node, URIRef, str, URIRef]
#: A :data:`Finding` with rdflib's nodes.
Result = tuple[Node, "Node | None", Node, Node, URIRef, str, URIRef]

#: Entries of each group's memo of what its rules found for a key. The compiled selection
#: passes over a line whose keys every group has seen: a line reaches a group with a key it
#: has seen only beside another group's new key, mostly on the lines near it (one entity's
#: statements). On the 1M-statement dump of benchmarks/dump.py, 100,000 entries cost more
#: time (allocation, eviction) than they saved, and some 35 MiB a process; 4,096 were as
#: quick as any size tried (256 to 100,000).
GROUP_MEMO_LIMIT = 4_096

# -- Rules, and groups of rules that depend on the same terms ------------------------------

Rule = Callable[[Triple], list[Finding]]
PredicateTest = Callable[[Term], bool]
#: How a statement gives results: (constant predicate, positions it depends on, rule, gate,
#: test of the predicate).
_RuleEntry = tuple["Term | None", tuple[int, ...], Rule, "tuple[int, str] | None", "PredicateTest | None"]


#: What select_lines asks a new term at a group's gate (_Group.probe): a match of the text,
#: or per rule the index of its test of the predicate and the packed automata of its gate
#: and its patterns; or what the group gives by the kinds of the terms (_signature).
#: A group's rules as select_lines runs them (_Group.packed).
Packed = tuple[
    tuple[int, int, "tuple[bytes, bytes] | None", int, tuple[tuple[int | tuple[bytes, bytes], ...], ...]],
    ...,
]
Probe = Callable[[str], object] | Packed | bytes

#: What a result made by ``select_lines`` reports (:meth:`_Group.rows`): shape, component,
#: message, severity.
Reported = tuple[Node, URIRef, str, URIRef]
Rows = tuple[Packed, bytes, tuple[Reported, ...]]

#: The kinds of term whose results ``select_lines`` makes (:meth:`_Group.rows`), in its order.
_ROW_KINDS = (
    ox.NamedNode("urn:ldids:kind"),
    ox.Literal("kind"),
    ox.Literal("kind", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#anyURI")),
)

#: A target rule tried on a term alone: (its gate, its kind tests, its shape, its predicate test).
_Direct = tuple[Callable[[str], object], tuple["KindTest", ...], "_Shape", "PredicateTest | None"]


class _Group:
    """Rules that depend on the same positions of a statement, with one memo of what they
    found, keyed by the terms there, and the regular expression a term must match first."""

    def __init__(self, positions: tuple[int, ...]) -> None:
        self.positions = positions
        self.key: Callable[[Triple], object] = operator.itemgetter(*positions) if positions else (lambda triple: ())
        self.rules: list[tuple[Rule, tuple[int, str] | None, PredicateTest | None]] = []
        #: Per key, what each rule that found something found, with its test of the predicate.
        self.memo: dict[object, tuple[tuple[PredicateTest | None, tuple[Finding, ...]], ...]] = {}
        self.gate_position = -1
        self.gate: Callable[[str], object] | None = None
        #: What :attr:`gate` matches with (ldids.shacl.prefilter derives needles from it).
        self.regex: re.Pattern[str] | None = None
        self.tried: list[tuple[Rule, Callable[[Triple], bool] | None, PredicateTest | None]] = []
        #: The rules as :meth:`_take_direct` tries them, when it can.
        self.direct: list[_Direct] = []
        #: Its bit in the groups a line gives new keys to (:meth:`Plan.groups`).
        self.bit = -1
        #: What it gives by the kinds and equalities of a statement's terms (:func:`_signature`).
        self.signature: bytes | None = None

    def close(self) -> None:
        # Each rule's own gate, compiled once: tried on a new key once the union has matched.
        self.tried = [(rule, None if gate is None else _gate(*gate), test) for rule, gate, test in self.rules]
        gates = {gate for _, gate, _ in self.rules if gate is not None}
        positions = {position for position, _ in gates}
        if all(gate is not None for _, gate, _ in self.rules) and len(positions) == 1:
            self.gate_position = positions.pop()
            try:
                regexes = [to_python(regex) for _, regex in sorted(gates)]
            except UntranslatableError:
                return
            union = self.regex = re.compile("|".join(f"(?:{regex.pattern})" for regex in regexes))
            # Anchored at the start, a search is a match; one that says so is told at once
            # that a term does not start like any: a search would try every character.
            self.gate = union.match if all(_anchored(regex) for regex in regexes) else union.search
            self._take_direct()

    def _take_direct(self) -> None:
        """When every rule is a target that selects the term at the gate as it is (once its
        kind passes), a new term is tried against each rule without a statement: its text
        and its kind are read once, the kind tests are looked up, and the shapes asked."""
        direct: list[_Direct] = []
        for rule, gate, test in self.rules:
            if not isinstance(rule, _TargetRule) or rule.branch.direct != self.gate_position or gate is None:
                return
            if any(position != self.gate_position for position, _ in rule.branch.kind_tests):
                return
            regex = to_python(gate[1])
            find = regex.match if _anchored(regex) else regex.search
            direct.append((find, tuple(kind_test for _, kind_test in rule.branch.kind_tests), rule.shape, test))
        self.direct = direct

    @functools.cached_property
    def nothing(self) -> re.Pattern[str] | None:
        """Matches the text of a term (an IRI's, a literal's lexical form) the rules give
        nothing for, whatever its kind (:func:`_nothing`); None if it cannot be written.
        Made when asked: a group whose rules are automata (:meth:`packed`) needs none."""
        return _nothing([(gate, shape) for gate, _, shape, _ in self.direct]) if self.direct else None

    def _fresh(self, term: Term) -> tuple[tuple[PredicateTest | None, tuple[Finding, ...]], ...]:
        """What the rules find for a term not in the memo (:meth:`_take_direct`)."""
        text, of_kind = term.value, kind(term)
        found = []
        for find, kind_tests, shape, test in self.direct:
            if find(text) is None:
                continue
            for kind_test in kind_tests:
                passes = kind_test.known.get(of_kind)
                if not (kind_test(term) if passes is None else passes):
                    break
            else:
                results = shape.of(term)
                if results:
                    found.append((test, tuple(results)))
        return tuple(found)

    def probe(self, tests: Sequence[int] = ()) -> Probe | None:
        """What ``select_lines`` asks of a statement before its key: the group's
        :attr:`signature`; or its rules as automata (:meth:`packed`); or, where the group's
        key is the term at its gate alone, :attr:`nothing`'s match of that term's text."""
        if self.signature is not None:
            return self.signature
        packed = self.packed(tests)
        if packed is not None:
            return packed
        if self.nothing is None or self.positions != (self.gate_position,):
            return None
        return self.nothing.match

    def packed(self, tests: Sequence[int] = ()) -> Packed | None:
        """The group gives nothing for a statement when, for each rule, its test of the
        predicate fails, or the text of the term at its gate is not matched by the gate, or
        the shape's checks hold on the focus node's text (:func:`~ldids.shacl.value.holding`:
        one of the ways they hold does). Per rule: (the index of its test of the predicate in
        a predicate's class, ``tests``, or -1; the gate's position or -1; the gate's automaton
        or None; the focus node's position; the ways, each (least length, greatest length,
        automata...)), the automata packed (:mod:`ldids.shacl.dfa`). None if a rule is not a
        target's, or its checks or regular expressions have no such form."""
        indexes = list(tests) or [-1] * len(self.rules)
        rules: list[
            tuple[
                int,
                int,
                tuple[bytes, bytes] | None,
                int,
                tuple[tuple[int | tuple[bytes, bytes], ...], ...],
            ]
        ]
        rules = []
        for (rule, gate, _), index in zip(self.rules, indexes, strict=True):
            if not isinstance(rule, _TargetRule):
                return None
            focus = rule.branch.focus_position()
            ways = holding([check for _, check in rule.shape.checks])
            if focus is None or ways is None:
                return None
            try:
                # A gate Python's re cannot take is always false (_gate): none is the safe side.
                gate_automaton = None if gate is None else plan_cache.packed(to_python(gate[1]))
                alternatives = list(_packed_ways(ways))
            except (UnsupportedError, UntranslatableError):
                return None
            # A text the target's FILTER excludes (!REGEX) gives nothing either, whatever the
            # checks say: in the shipped shapes, a dc:identifier a prefixed scheme claims. One
            # with no automaton is left out (the statement is then looked at whole, as before).
            for regex in (regex for position, regex in rule.branch.excluded if position == focus):
                with contextlib.suppress(UnsupportedError, UntranslatableError):
                    alternatives.append((0, sys.maxsize, plan_cache.packed(to_python(regex))))
            rules.append((index, -1 if gate is None else gate[0], gate_automaton, focus, tuple(alternatives)))
        return tuple(rules)

    def rows(self, tests: Sequence[int] = ()) -> Rows | None:
        """The group's results as ``select_lines`` makes them, where its rules select the
        term at the gate as it is (:meth:`_take_direct`) and report their shapes' checks
        that fail on it: one rule per check of each rule's shape, in the order :meth:`_fresh`
        reports them, as automata (:meth:`packed`'s form: the check's ways of holding); per
        such rule whether the rule's kind tests pass for an IRI, an xsd:string literal and
        an xsd:anyURI literal, a byte each; and what each reports (shape, component,
        message, severity). None where a check or a regular expression has no automaton."""
        if not self.direct or len(self.direct) != len(self.rules):
            return None
        indexes = list(tests) or [-1] * len(self.rules)
        rules: list[tuple[int, int, tuple[bytes, bytes], int, tuple[tuple[int | tuple[bytes, bytes], ...], ...]]] = []
        kinds = bytearray()
        reported: list[Reported] = []
        for (_, gate, _), (_, kind_tests, shape, _), index in zip(self.rules, self.direct, indexes, strict=True):
            assert gate is not None  # _take_direct takes only rules with gates
            passes = bytes(all(test(term) for test in kind_tests) for term in _ROW_KINDS)
            try:
                gate_automaton = plan_cache.packed(to_python(gate[1]))
                for component, check in shape.checks:
                    ways = holding([check])
                    if ways is None:
                        return None
                    rules.append((index, gate[0], gate_automaton, gate[0], _packed_ways(ways)))
                    kinds += passes
                    reported.append((shape.node, component, shape.message, shape.severity))
            except (UnsupportedError, UntranslatableError):
                return None
        return (tuple(rules), bytes(kinds), tuple(reported)) if rules else None

    def findings(self, triple: Triple) -> list[Finding] | tuple[Finding, ...]:
        if self.gate is not None:
            term = triple[self.gate_position]
            if isinstance(term, ox.BlankNode) or self.gate(term.value) is None:
                return ()
        key = self.key(triple)
        found = self.memo.get(key)
        if found is None and self.direct:
            found = self._fresh(triple[self.gate_position])
            if len(self.memo) >= GROUP_MEMO_LIMIT:
                evict_oldest_half(self.memo)
            self.memo[key] = found
        elif found is None:
            found = tuple(
                (test, results)
                for rule, gate, test in self.tried
                if gate is None or gate(triple)
                for results in (tuple(rule(triple)),)
                if results
            )
            if len(self.memo) >= GROUP_MEMO_LIMIT:
                evict_oldest_half(self.memo)
            self.memo[key] = found
        if not found:
            return ()
        if len(found) == 1 and found[0][0] is None:
            return found[0][1]
        return [result for test, results in found if test is None or test(triple[1]) for result in results]


def _packed_ways(ways: list[Holding]) -> tuple[tuple[int | tuple[bytes, bytes], ...], ...]:
    """Ways of holding (:func:`~ldids.shacl.value.holding`) as ``select_lines`` reads them:
    (least length, greatest length, packed automata...) each."""
    return tuple((least, most, *(plan_cache.packed(regex) for regex in regexes)) for least, most, regexes in ways)


def _nothing(rules: list[tuple[Callable[[str], object], _Shape]]) -> re.Pattern[str] | None:
    """One regular expression that matches (at the start) the texts for which every rule's
    gate fails or its shape's checks all hold, when these are all ``sh:pattern``: a term
    that is no blank node whose text it matches gives those rules nothing, whatever its kind
    (a kind test can only turn a rule away). Each part is a look-ahead from the start, where
    one anchored at the start is a match and any other a search (``[\\s\\S]*?`` first),
    under its own flags. None when a check is of another kind."""
    parts = []
    for find, shape in rules:
        gate: re.Pattern[str] = find.__self__  # type: ignore[attr-defined]  # a compiled match or search
        patterns = [pattern_of(check) for _, check in shape.checks]
        if not all(patterns):
            return None
        holds = "".join(f"(?={_from_start(pattern)})" for pattern in patterns if pattern is not None)
        parts.append(f"(?:(?!{_from_start(gate)}){'|' + holds if holds else ''})")
    return re.compile("".join(parts))


def _from_start(regex: re.Pattern[str]) -> str:
    """``regex`` as a part of a larger one, that matches at the start where it finds a match."""
    flags = "".join(letter for letter, flag in (("i", re.I), ("m", re.M), ("s", re.S)) if regex.flags & flag)
    inner = f"(?{flags}:{regex.pattern})" if flags else f"(?:{regex.pattern})"
    return inner if _anchored(regex) and not regex.flags & re.MULTILINE else f"[\\s\\S]*?{inner}"


#: The terms a statement of each kind is made of, to try a group's rules on (_signature).
_KINDS = (ox.NamedNode("urn:ldids:kind"), ox.BlankNode("kind"), ox.Literal("kind"))


def _signature(group: _Group, predicate: Term | None) -> bytes | None:
    """What the group gives per kind of subject and object and equalities of the terms, when
    its rules look at nothing else (:func:`_kind_only`, no gate, no test of the predicate):
    a byte per (subject kind + 3 object kind + 9 subject = object + 18 subject = predicate
    + 36 predicate = object), kinds IRI 0, blank node 1, literal 2; 1 when it gives nothing.
    None otherwise."""
    if group.gate is not None or not group.rules:
        return None
    if not all(getattr(rule, "kind_only", False) and test is None for rule, _, test in group.rules):
        return None
    table = bytearray(72)
    verb = predicate if predicate is not None else ox.NamedNode("urn:ldids:predicate")
    for index in range(72):
        subject_kind, object_kind = index % 3, index // 3 % 3
        same = (index // 9 % 2 == 1, index // 18 % 2 == 1, index // 36 % 2 == 1)
        if subject_kind == 2:
            continue  # no such statement: the line is looked at
        subject: Term = verb if same[1] else _KINDS[subject_kind] if subject_kind else ox.NamedNode("urn:ldids:s")
        value: Term = subject if same[0] else verb if same[2] else _KINDS[object_kind]
        if (kind(subject), kind(value)) != (kind(_KINDS[subject_kind]), kind(_KINDS[object_kind])):
            continue
        if (subject == value, subject == verb, verb == value) != same:
            continue
        triple = (subject, verb, value)
        table[index] = not any(rule(triple) for rule, _, _ in group.rules)
    return bytes(table)


@functools.cache
def _anchored(regex: re.Pattern[str]) -> bool:
    """Does ``regex`` match at the start of a string only (a leading ``^``, no ``|`` outside groups)?"""
    parsed = re._parser.parse(regex.pattern, regex.flags)  # type: ignore[attr-defined]
    return len(parsed) > 0 and parsed[0] == (re._constants.AT, re._constants.AT_BEGINNING)  # type: ignore[attr-defined]


def _gate(position: int, regex: str) -> Callable[[Triple], bool]:
    """Does the text of the term at ``position`` match ``regex`` (a blank node has none)?"""
    try:
        compiled = to_python(regex)
    except UntranslatableError:
        # Compiled in the FILTER, the REGEX would raise an error on every solution, and an
        # error in a conjunct of a FILTER makes it false (SPARQL 1.1 §17.2).
        return lambda triple: False
    find = compiled.match if _anchored(compiled) else compiled.search
    return lambda triple: not isinstance(term := triple[position], ox.BlankNode) and find(term.value) is not None


# -- Shapes --------------------------------------------------------------------------------


@dataclass
class _Shape:
    """What a node shape reports of a focus node: its value-local constraints' results."""

    node: Node
    message: str
    severity: URIRef
    checks: list[tuple[URIRef, ValueCheck]]

    def of(self, focus: Term | None) -> list[Finding]:
        if focus is None:
            return []
        return [
            (focus, None, focus, self.node, component, self.message, self.severity)
            for component, check in self.checks
            if not check(focus)
        ]


def _message(shapes: Graph, shape: Node, default: str = "") -> str:
    found = shapes.value(shape, SH.message)
    return default if found is None else str(found)


def _severity(shapes: Graph, shape: Node) -> URIRef:
    found = shapes.value(shape, SH.severity)
    return found if isinstance(found, URIRef) else SH.Violation


def _target_rules(shapes: Graph, node: Node, shape: _Shape) -> Iterator[_RuleEntry]:
    """(predicate, positions, rule, gate) of each way a statement makes a focus node."""
    if {SH.targetClass, SH.targetNode} & set(shapes.predicates(node, None)) or (node, RDF.type, RDFS.Class) in shapes:
        raise NotStreamableError("sh:targetClass and sh:targetNode need the whole graph")
    for predicate in shapes.objects(node, SH.targetSubjectsOf):
        yield from_rdflib(predicate), (0,), _kind_only(lambda triple: shape.of(triple[0]), shape.checks), None, None
    for predicate in shapes.objects(node, SH.targetObjectsOf):
        yield from_rdflib(predicate), (2,), _kind_only(lambda triple: shape.of(triple[2]), shape.checks), None, None
    for target in shapes.objects(node, SH.target):
        if (target, RDF.type, SH.SPARQLTarget) not in shapes:
            raise NotStreamableError("a target of a custom target type")
        for branch in query_branches(str(shapes.value(target, SH.select))):
            yield (
                branch.predicate(),
                branch.positions(),
                _target_rule(branch, shape),
                branch.gate,
                branch.predicate_test,
            )


class _TargetRule:
    """The results of a shape on the focus nodes one branch of its target selects."""

    def __init__(self, branch: Branch, shape: _Shape) -> None:
        self.branch, self.shape = branch, shape

    def __call__(self, triple: Triple) -> list[Finding]:
        return self.shape.of(self.branch.select(triple))


def _target_rule(branch: Branch, shape: _Shape) -> Rule:
    return _kind_only(_TargetRule(branch, shape), shape.checks if _plain(branch) else None)


def _plain(branch: Branch) -> bool:
    """Does the branch select from the terms' equalities alone (variables, no FILTER or BIND)?"""
    return (
        not branch.steps
        and not branch.kind_tests
        and branch.gate is None
        and branch.predicate_test is None
        and all(isinstance(want, str) for index, want in enumerate(branch.pattern) if index != 1)
    )


def _kind_only(rule: Rule, checks: list[tuple[URIRef, ValueCheck]] | None) -> Rule:
    """``rule``, marked when what it gives is nothing or something by the kinds of the terms
    and which are equal alone: its checks are all of ``sh:nodeKind`` (:func:`_signature`)."""
    rule.kind_only = checks is not None and all(kinds_of(check) for _, check in checks)  # type: ignore[attr-defined]
    return rule


def _shape_rules(shapes: Graph, node: Node) -> list[_RuleEntry]:
    shape = _Shape(node, _message(shapes, node), _severity(shapes, node), value_checks(shapes, node))
    rules = list(_target_rules(shapes, node, shape))
    subjects_of = set(shapes.objects(node, SH.targetSubjectsOf))
    alone = len(rules) == 1 and len(subjects_of) == 1
    for prop in shapes.objects(node, SH.property):
        path = shapes.value(prop, SH.path)
        if not isinstance(path, URIRef) or path not in subjects_of or not alone:
            raise NotStreamableError("a property shape whose values are not in the statement that makes the focus node")
        if any(True for _ in shapes.objects(prop, SH.property)) or any(True for _ in shapes.objects(prop, SH.sparql)):
            raise NotStreamableError("nested property shapes or SPARQL in a property shape")
        rules.append((from_rdflib(path), (0, 2), _property_rule(shapes, prop, path, shape), None, None))
    for constraint in shapes.objects(node, SH.sparql):
        branches = query_branches(str(shapes.value(constraint, SH.select)))
        predicates = {branch.predicate() for branch in branches}
        one = next(iter(predicates)) if len(predicates) == 1 else None
        if (
            one is None
            or to_rdflib(one) not in subjects_of
            or not alone
            or any(b.pattern[0] != "this" for b in branches)
        ):
            raise NotStreamableError("a SPARQL constraint beyond the statement that makes the focus node")
        message = _message(shapes, constraint, shape.message)
        for branch in branches:
            rules.append(
                (one, branch.positions(), _sparql_rule(branch, shape, message), branch.gate, branch.predicate_test)
            )
    return rules


def _property_rule(shapes: Graph, prop: Node, path: URIRef, shape: _Shape) -> Rule:
    checks = value_checks(shapes, prop)
    message, severity = _message(shapes, prop, shape.message), _severity(shapes, prop)

    def rule(triple: Triple) -> list[Finding]:
        value = triple[2]
        return [
            (triple[0], path, value, prop, component, message, severity)
            for component, check in checks
            if not check(value)
        ]

    return _kind_only(rule, checks)


def _sparql_rule(branch: Branch, shape: _Shape, message: str) -> Rule:
    # $this is pre-bound to the focus node, the subject (SHACL §5.3.1): each solution is a result.
    def rule(triple: Triple) -> list[Finding]:
        if branch.select(triple) is None:
            return []
        focus = triple[0]
        return [(focus, None, focus, shape.node, SH.SPARQLConstraintComponent, message, shape.severity)]

    return _kind_only(rule, [] if _plain(branch) else None)


@dataclass
class Plan:
    """What a shapes graph asks of each statement; the shapes it cannot ask it of, with why."""

    shapes: list[Node]
    not_streamable: list[tuple[Node, str]]
    #: Groups of rules looked at on every statement, and on the statements of one predicate.
    anywhere: list[_Group] = field(default_factory=list)
    by_predicate: dict[Term, list[_Group]] = field(default_factory=dict)
    #: The shapes graph, which names the shapes of the results (:meth:`name`).
    graph: Graph | None = field(default=None, repr=False)

    def name(self, shape: Node) -> str:
        """A shape as the reports name it (ldids.shacl.validate.shape_name, as every engine
        does): its IRI, or a property shape by its path; not a blank node's label, which
        differs from run to run."""
        from ldids.shacl.validate import shape_name

        return str(shape) if self.graph is None else shape_name(self.graph, shape)

    def check(self, triple: Triple, groups: int = -1) -> list[Finding]:
        """The results one statement (pyoxigraph terms) gives, of the groups whose bits
        (:meth:`groups`) are set in ``groups`` (every group by default)."""
        found: list[Finding] = []
        for group in self.anywhere:
            if group.bit & groups:
                results = group.findings(triple)
                if results:
                    found.extend(results)
        for group in self.by_predicate.get(triple[1], ()):
            if group.bit & groups:
                results = group.findings(triple)
                if results:
                    found.extend(results)
        return found

    def groups(self) -> list[_Group]:
        """The groups in order: group ``g`` has the bit ``1 << g`` (all bits from 64 on)."""
        return [*self.anywhere, *(group for found in self.by_predicate.values() for group in found)]

    def findings(self, triple: tuple[Node, Node, Node]) -> list[Result]:
        """:meth:`check` on a statement of rdflib terms, its results' nodes rdflib terms."""
        return [
            (to_rdflib(focus), path, to_rdflib(value), shape, component, message, severity)
            for focus, path, value, shape, component, message, severity in self.check(
                tuple(from_rdflib(term) for term in triple)  # type: ignore[arg-type]
            )
        ]


def plan(shapes: Graph) -> Plan:
    """The streamed checks of every node shape that has targets (SHACL §2.1.3)."""
    names: list[Node] = []
    not_streamable: list[tuple[Node, str]] = []
    groups: dict[tuple[Term | None, tuple[int, ...]], _Group] = {}
    has_targets = {SH.targetSubjectsOf, SH.targetObjectsOf, SH.target, SH.targetClass, SH.targetNode}
    shape_nodes = sorted({s for p in has_targets for s in shapes.subjects(p, None)}, key=str)
    shape_nodes += sorted(
        (s for s in shapes.subjects(RDF.type, SH.NodeShape) if (s, RDF.type, RDFS.Class) in shapes), key=str
    )
    for node in shape_nodes:
        if shapes.value(node, SH.deactivated) == Literal(True):
            continue
        try:
            rules = _shape_rules(shapes, node)
        except NotStreamableError as why:
            not_streamable.append((node, str(why)))
            continue
        names.append(node)
        for predicate, positions, rule, gate, test in rules:
            groups.setdefault((predicate, positions), _Group(positions)).rules.append((rule, gate, test))
    result = Plan(names, not_streamable, graph=shapes)
    for (predicate, _), group in groups.items():
        group.close()
        group.signature = _signature(group, predicate)
        if predicate is None:
            result.anywhere.append(group)
        else:
            result.by_predicate.setdefault(predicate, []).append(group)
    for index, group in enumerate(result.groups()):
        group.bit = 1 << index if index < 64 else -1
        if group.signature is None:
            group.packed()  # its automata, kept with the queries parsed for the next run
    plan_cache.save()
    return result
