// `onCancel` of the cancellable completion-block forms: cancelling runs every registered action
// once, in order; a single action is kept as is, without a wrapper.

/// `earlier`, then `next`.
@inlinable
func chained(_ earlier: (() -> Void)?, _ next: @escaping () -> Void) -> () -> Void {
    guard let earlier else { return next }
    return { earlier(); next() }
}

/// The `@Sendable` twin of the function above.
@inlinable
func chained(_ earlier: CancelAction?, _ next: @escaping CancelAction) -> CancelAction {
    guard let earlier else { return next }
    return { earlier(); next() }
}

/// One cancel action that runs each action `start` gave its `onCancel`, in order.
@inlinable
func cancelAction(_ start: (_ onCancel: (@escaping CancelAction) -> Void) -> Void) -> CancelAction {
    var cancel: CancelAction?
    start { cancel = chained(cancel, $0) }
    return cancel ?? {}
}
