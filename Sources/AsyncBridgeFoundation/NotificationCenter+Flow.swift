import AsyncBridge
import Foundation

extension NotificationCenter {
    /// The notifications named `name` (from `object`, or from any sender when `object` is
    /// `nil`), each turned into a `Sendable` value by `extract` on the posting thread: the
    /// `Notification` itself (not `Sendable`) never crosses to another thread.
    ///
    /// Each subscription adds an observer and removes it when cancelled; the flow never
    /// finishes. Values are sent on the posting thread, in the order of the posts (hop with
    /// `receive(on: MainActor.shared)`). `object` is compared by identity and held strongly by
    /// the flow: see <doc:AsyncBridgeFoundation>.
    ///
    /// ```swift
    /// let logins = NotificationCenter.default.flow(for: .didLogIn) { $0.userInfo?["name"] as? String }
    /// let token = logins.subscribe { print("logged in:", $0 ?? "?") }
    /// for await name in NotificationCenter.default.flow(for: .didLogIn, { $0.userInfo?["name"] as? String }).values {
    ///     print(name ?? "?")
    /// }
    /// ```
    ///
    /// RxSwift: `NotificationCenter.default.rx.notification(.didLogIn).map { … }` (RxCocoa);
    /// Combine: `NotificationCenter.default.publisher(for: .didLogIn).map { … }`; Foundation:
    /// `notifications(named:)`.
    @inlinable
    public func flow<Value: Sendable>(
        for name: Notification.Name,
        object: AnyObject? = nil,
        _ extract: @escaping @Sendable (Notification) -> Value
    ) -> Flow<Value, Never> {
        let sender = NotificationSender(object: object)
        return Flow.create { [self] emitter in
            let observer = NotificationObserver(
                token: addObserver(forName: name, object: sender.object, queue: nil) { notification in
                    emitter.send(extract(notification))
                }
            )
            emitter.onCancel { self.removeObserver(observer.token) }
        }
    }

    /// The notifications named `name`, one `Void` value each: ``flow(for:object:_:)`` for a
    /// notification whose content does not matter.
    ///
    /// ```swift
    /// let memoryWarnings = NotificationCenter.default.flow(for: .memoryWarning)
    /// let token = memoryWarnings.subscribe { _ in cache.removeAll() }
    /// ```
    ///
    /// RxSwift: `rx.notification(.memoryWarning).map { _ in () }`; Combine:
    /// `publisher(for: .memoryWarning).map { _ in () }`.
    public func flow(for name: Notification.Name, object: AnyObject? = nil) -> Flow<Void, Never> {
        flow(for: name, object: object) { _ in () }
    }
}

/// Unchecked Sendable: the observed object is only handed to `NotificationCenter`, which
/// compares it by identity; this package never reads or calls it.
@usableFromInline
struct NotificationSender: @unchecked Sendable {
    @usableFromInline let object: AnyObject?

    @inlinable
    init(object: AnyObject?) {
        self.object = object
    }
}

/// Unchecked Sendable: `addObserver`'s token is only handed back to `removeObserver`, which
/// may be called from any thread.
@usableFromInline
struct NotificationObserver: @unchecked Sendable {
    @usableFromInline let token: any NSObjectProtocol

    @inlinable
    init(token: any NSObjectProtocol) {
        self.token = token
    }
}
