/// How a script asked for a message to be shown.
public enum ScriptMessageKind: String, Sendable, Equatable {
    /// `java.log(x)`: a debugging line.
    case log
    /// `java.toast(x)`: a short notice to the reader (a warning here).
    case toast
    /// `java.longToast(x)`: a longer notice (a warning here).
    case longToast
}
