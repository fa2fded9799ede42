/// Holds cancellation tokens and cancels them all when it is released or emptied: ties
/// subscriptions to the life of their owner.
///
/// A token does not cancel when it is released, and `Flow`'s `subscribe` methods do not let
/// their token be dropped silently: an unused token is a compiler warning, and
/// `.store(in: bag)` is the usual answer to it.
///
/// RxSwift: `DisposeBag`; Combine: `Set<AnyCancellable>`.
///
/// ```swift
/// final class ViewModel {
///     let bag = CancellationBag()
///     init(names: Flow<String, Never>) {
///         names.subscribe { print($0) }.store(in: bag)
///     }
/// }
/// ```
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
