/// Holds cancellation tokens and cancels them all when it is released or emptied: ties
/// subscriptions to the life of their owner.
///
/// ```swift
/// names.subscribe { print($0) }.store(in: bag)   // bag: a property of the owner
/// ```
///
/// RxSwift: `DisposeBag`; Combine: `Set<AnyCancellable>`.
public final class CancellationBag: Sendable {
    private let tokens = Lock<[CancellationToken]>.make([])

    /// Creates an empty bag.
    ///
    /// ```swift
    /// let bag = CancellationBag()
    /// ```
    public init() {}

    /// Adds a token; it is cancelled with the bag.
    ///
    /// ```swift
    /// bag.insert(flow.subscribe { print($0) })
    /// ```
    public func insert(_ token: CancellationToken) {
        tokens.withLock { $0.append(token) }
    }

    /// Cancels every token held, and empties the bag; it can be used again.
    ///
    /// ```swift
    /// bag.cancelAll()   // e.g. when a screen disappears
    /// ```
    public func cancelAll() {
        let held = tokens.withLock { tokens -> [CancellationToken] in
            defer { tokens = [] }
            return tokens
        }
        for token in held { token.cancel() }
    }

    /// How many tokens the bag holds.
    ///
    /// ```swift
    /// #expect(bag.count == 2)
    /// ```
    public var count: Int { tokens.withLock { $0.count } }

    deinit {
        cancelAll()
    }
}

extension CancellationToken {
    /// Stores the token in `bag`, which cancels it when released or emptied.
    ///
    /// ```swift
    /// flow.subscribe { print($0) }.store(in: bag)
    /// ```
    public func store(in bag: CancellationBag) {
        bag.insert(self)
    }
}
