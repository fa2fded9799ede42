// The `onCancel` parameter of the cancellable completion-block forms: the body registers how
// to stop its operation; cancelling runs every registered action once, in the order given.
// One action costs nothing more than the action itself.

/// `earlier`, then `next`.
@inlinable
func chained(_ earlier: (() -> Void)?, _ next: @escaping () -> Void) -> () -> Void {
    guard let earlier else { return next }
    return { earlier(); next() }
}

/// `earlier`, then `next`: the `@Sendable` twin of the function above.
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
