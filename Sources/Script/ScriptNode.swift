import BookRuleDocument

/// An HTML node a script holds: an element of the page a rule runs on, or of a document the script parsed
/// with `org.jsoup.Jsoup.parse`. Kept alive by the JavaScript object wrapping it (released by that object's
/// finalizer).
final class ScriptNode {
    /// The node (which keeps its document alive).
    let node: HTMLNode
    /// The script-parsed tree the node belongs to, when it is one: only those trees may be changed
    /// (`remove()`); the page a rule runs on is shared with other rules and stays as fetched.
    let tree: ScriptTree?

    init(_ node: HTMLNode, tree: ScriptTree?) {
        self.node = node
        self.tree = tree
    }

    /// Another node of the same tree.
    func related(_ other: HTMLNode) -> ScriptNode {
        ScriptNode(other, tree: tree)
    }
}

/// A document a script parsed itself: the only kind `remove()` may change.
final class ScriptTree {
    /// The parsed document.
    let document: HTMLDocument

    init(_ document: HTMLDocument) {
        self.document = document
    }

    /// Takes `node` (and its subtree) out of the document; the document frees it when it goes, so node
    /// values handed to rules (which keep the document alive) stay readable.
    func detach(_ node: HTMLNode) {
        document.detach(node)
    }
}
