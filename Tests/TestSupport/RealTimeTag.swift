import Testing

extension Tag {
    /// A test whose verdict depends on wall-clock time: it bounds how long something took (a hang catcher set
    /// just below what the broken behaviour would take, stretched by `TestTime.bound`) or measures a pace. These
    /// are the real-time checks that remain; every other test runs on a clock it sets or waits for events.
    /// `scripts/check-real-time-tests.py` (in `make test`) finds a test that measures time without the tag.
    @Tag package static var realTime: Self
}
