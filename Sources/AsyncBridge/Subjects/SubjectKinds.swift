// The public subjects and relays are façades on one `SubjectStorage` each, its kind set by its
// buffer: what each kind is, and what they share beyond forwarding, is here once.

extension SubjectStorage {
    /// No buffer: `LiveSubject`, `LiveRelay`.
    @inlinable
    static func live() -> SubjectStorage {
        SubjectStorage(bufferSize: 0)
    }

    /// A buffer of the latest `bufferSize` values, replayed also after the completion:
    /// `ReplayingSubject`, `ReplayingRelay` (`initializer` names the caller in a misuse report).
    @inlinable
    static func replaying(_ bufferSize: Int, initializer: StaticString) -> SubjectStorage {
        checkCount(bufferSize, of: initializer, named: "bufferSize", atLeast: 0)
        return SubjectStorage(bufferSize: bufferSize)
    }

    /// A buffer of one that starts with `value`: `LatestValueSubject` (a subscriber that arrives
    /// after the completion gets the completion alone), `LatestValueRelay` (never completed).
    @inlinable
    static func latestValue(_ value: Element) -> SubjectStorage {
        SubjectStorage(bufferSize: 1, initial: [value], replaysAfterCompletion: false)
    }

    /// The current value of a ``latestValue(_:)`` storage, whose buffer never empties.
    @inlinable
    var current: Element {
        guard let latest else { preconditionFailure("Internal inconsistency: a latest-value subject without a value") }
        return latest
    }
}
