extension Duration {
    /// The duration in seconds, as a floating-point number.
    package var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }

    /// `duration` scaled by `factor` (≥ 0), never below zero.
    func scaled(by factor: Double) -> Duration {
        let seconds = inSeconds * factor
        guard seconds.isFinite, seconds > 0 else { return .zero }
        return .seconds(min(seconds, 1e15))
    }

    /// A short reading for messages: `0.25 s`, `3 s`, `5 min`, `1 h 30 min`.
    var readable: String {
        let milliseconds = Int64(min(max(inSeconds * 1_000, 0), 1e15).rounded())
        if milliseconds < 10_000 {
            let whole = milliseconds / 1_000
            let rest = milliseconds % 1_000
            if rest == 0 { return "\(whole) s" }
            var fraction = String(rest)
            while fraction.count < 3 { fraction = "0" + fraction }
            while fraction.hasSuffix("0") { fraction.removeLast() }
            return "\(whole).\(fraction) s"
        }
        let seconds = (milliseconds + 500) / 1_000
        if seconds < 120 { return "\(seconds) s" }
        let minutes = (seconds + 30) / 60
        if minutes < 120 { return "\(minutes) min" }
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }
}
