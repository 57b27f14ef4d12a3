"""The bot's own word index: a DAWG over tiles (Qu is one edge), plus a set for lookups.

The platform's dictionary service is the authority on words; this index only
lets the bot search, so it takes any iterable of words.
"""

from __future__ import annotations

from collections.abc import Iterable

from parlor.rules.upwords import tiles


class Node:
    """One state of the DAWG: edges by tile, and whether a word ends here."""

    __slots__ = ("edges", "terminal")

    def __init__(self) -> None:
        self.edges: dict[str, Node] = {}
        self.terminal = False


class Dawg:
    """Words as lowercase text (``quit``) and as a minimised DAWG over tiles."""

    def __init__(self, words: Iterable[str]) -> None:
        self.root = Node()
        texts: set[str] = set()
        for raw in words:
            word = raw.strip().lower()
            spelled = tiles.tokens(word)
            if spelled is None or len(spelled) < 2 or word in texts:
                continue
            texts.add(word)
            node = self.root
            for tile in spelled:
                nxt = node.edges.get(tile)
                if nxt is None:
                    nxt = node.edges[tile] = Node()
                node = nxt
            node.terminal = True
        self.words: frozenset[str] = frozenset(texts)
        self.nodes = self._minimise()

    def __contains__(self, word: object) -> bool:
        return word in self.words

    def __len__(self) -> int:
        return len(self.words)

    def _minimise(self) -> int:
        """Merge equal suffix subtrees (trie -> DAWG); returns the node count left."""
        registry: dict[tuple[bool, tuple[tuple[str, int], ...]], Node] = {}

        def canonical(node: Node) -> Node:
            for tile, child in node.edges.items():
                node.edges[tile] = canonical(child)
            key = (node.terminal, tuple(sorted((t, id(c)) for t, c in node.edges.items())))
            return registry.setdefault(key, node)

        self.root = canonical(self.root)
        return len(registry)
