import BookRule

extension EngineError {
    /// The exit status for this failure: 2 when the source itself is unusable for the step (invalid input),
    /// 1 when the work failed (the site, the network, a rule finding nothing).
    var exitStatus: Int32 {
        switch self {
        case .unusableRules, .missingRule: return 2
        default: return 1
        }
    }
}
