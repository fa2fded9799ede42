/// A weak reference as a value, for an escaping closure to capture. A capture list's
/// `[weak object]` can put the weak variable in a box of its own, one allocation more: it did in
/// a subject's subscribe, whose cancel action captures the subject this way instead.
///
/// ```swift
/// let subject = WeakReference(self)
/// subscription.onCancel { subject.object?.remove(id) }
/// ```
@usableFromInline
struct WeakReference<Object: AnyObject & Sendable>: Sendable {
    @usableFromInline weak var object: Object?

    @inlinable
    init(_ object: Object) {
        self.object = object
    }
}
