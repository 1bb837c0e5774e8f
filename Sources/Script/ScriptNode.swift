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

/// A document a script parsed itself, and the nodes `remove()` took out of it (freed once every node handle
/// into them is gone: each handle holds this object).
final class ScriptTree {
    /// The parsed document.
    let document: HTMLDocument
    private let detached: DetachedSubtrees

    init(_ document: HTMLDocument) {
        self.document = document
        detached = DetachedSubtrees(of: document)
    }

    /// Takes `node` (and its subtree) out of the document; it stays readable until this tree goes.
    func detach(_ node: HTMLNode) {
        detached.detach(node)
    }
}
