import BookRuleDocument
import CLibXML2

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

    /// A node of the same tree.
    func sibling(_ pointer: xmlNodePtr) -> ScriptNode {
        ScriptNode(HTMLNode(document: node.document, pointer: pointer), tree: tree)
    }
}

/// A document a script parsed itself, and the nodes `remove()` took out of it: libxml2 frees only what is
/// still in the tree when the document goes, so the detached subtrees are freed here, once, after every
/// node handle into them is gone (each handle holds this object).
final class ScriptTree {
    /// The parsed document.
    let document: HTMLDocument
    private var detached: [xmlNodePtr] = []

    init(_ document: HTMLDocument) {
        self.document = document
    }

    /// Takes `pointer` (and its subtree) out of the document; it stays readable until this tree goes.
    func detach(_ pointer: xmlNodePtr) {
        guard pointer.pointee.parent != nil else { return }
        xmlUnlinkNode(pointer)
        detached.append(pointer)
    }

    deinit {
        for pointer in detached { xmlFreeNode(pointer) }
    }
}
