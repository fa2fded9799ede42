/// What a flatMap subscription holds while it runs (``FlatMapStateMachine/running``), changed
/// in place through a pointer to a `ManagedBuffer`'s header (as in ``Lock``). A struct would be
/// copied out of the machine and back, with a retain and release per reference, on every event;
/// a class's stored properties would be checked for exclusive access on every use.
///
/// Unchecked: it is reached only through its machine, under the storage's lock, until the
/// machine hands it out in a ``FlatMapStateMachine/Teardown`` and forgets it (``end()``); from
/// then on its one owner only reads it. Debug builds check that nothing changes it after that.
@usableFromInline
struct FlatMapRunning<Element: Sendable, NewElement: Sendable, Failure: Error>: @unchecked Sendable {
    @usableFromInline
    typealias Start = FlatMapStateMachine<Element, NewElement, Failure>.Start
    @usableFromInline
    typealias Fields = FlatMapRunningFields<Element, NewElement, Failure>

    @usableFromInline let buffer: FlatMapRunningBuffer<Element, NewElement, Failure>

    @inlinable
    init(_ fields: Fields) {
        let buffer = FlatMapRunningBuffer<Element, NewElement, Failure>.create(minimumCapacity: 0) { _ in fields }
        self.buffer = unsafeDowncast(buffer, to: FlatMapRunningBuffer<Element, NewElement, Failure>.self)
    }

    @inlinable
    static func make(transform: @escaping @Sendable (Element) -> Flow<NewElement, Failure>, outer: FlowSubscription) -> FlatMapRunning {
        FlatMapRunning(Fields(transform: transform, outer: outer))
    }

    /// The fields; valid while `buffer` is alive.
    @inlinable
    var fields: UnsafeMutablePointer<Fields> {
        buffer.withUnsafeMutablePointerToHeader { $0 }
    }

    @inlinable
    var transform: @Sendable (Element) -> Flow<NewElement, Failure> { fields.pointee.transform }
    @inlinable
    var outer: FlowSubscription { fields.pointee.outer }
    /// The inners that have started and not ended.
    @inlinable
    var inners: FlatMapInners {
        get { fields.pointee.inners }
        nonmutating _modify { checkRunning(); yield &fields.pointee.inners }
    }
    /// Outer values waiting for a free slot (`merge` only), oldest first.
    @inlinable
    var waiting: RingBuffer<Element> {
        get { fields.pointee.waiting }
        nonmutating _modify { checkRunning(); yield &fields.pointee.waiting }
    }
    /// Values waiting while another thread delivers, oldest first.
    @inlinable
    var pending: RingBuffer<NewElement> {
        get { fields.pointee.pending }
        nonmutating _modify { checkRunning(); yield &fields.pointee.pending }
    }
    /// The id of the latest inner started.
    @inlinable
    var lastID: UInt64 {
        get { fields.pointee.lastID }
        nonmutating set { checkRunning(); fields.pointee.lastID = newValue }
    }
    @inlinable
    var outerFinished: Bool {
        get { fields.pointee.outerFinished }
        nonmutating set { checkRunning(); fields.pointee.outerFinished = newValue }
    }
    /// A thread is in the start loop, and will look at `waiting` before it leaves.
    @inlinable
    var isStarting: Bool {
        get { fields.pointee.isStarting }
        nonmutating set { checkRunning(); fields.pointee.isStarting = newValue }
    }
    /// A thread is delivering, and will look at `pending` before it stops.
    @inlinable
    var isDelivering: Bool {
        get { fields.pointee.isDelivering }
        nonmutating set { checkRunning(); fields.pointee.isDelivering = newValue }
    }

    @inlinable
    func checkRunning() {
        #if DEBUG
        if fields.pointee.ended { preconditionFailure("Internal inconsistency: a flatMap subscription changed after it ended") }
        #endif
    }

    /// The machine lets go of it.
    @inlinable
    func end() {
        #if DEBUG
        if fields.pointee.ended { preconditionFailure("Internal inconsistency: a flatMap subscription ended twice") }
        fields.pointee.ended = true
        #endif
    }

    /// Nothing runs, nothing waits and nothing more will come.
    @inlinable
    var isDone: Bool {
        outerFinished && inners.isEmpty && waiting.isEmpty && !isStarting
    }

    @inlinable
    func start(_ value: Element) -> Start {
        lastID += 1
        return Start(transform: transform, value: value, id: lastID, subscription: inners.insert(lastID))
    }

    /// Starts `value` in place of the running inner, if any (`latest`): the replaced inner's
    /// subscription, to be cancelled once unlocked.
    @inlinable
    func replace(with value: Element) -> (Start, replaced: FlowSubscription?) {
        lastID += 1
        let (started, replaced) = inners.replaceOnly(with: lastID)
        return (Start(transform: transform, value: value, id: lastID, subscription: started), replaced)
    }
}

@usableFromInline
struct FlatMapRunningFields<Element: Sendable, NewElement: Sendable, Failure: Error>: Sendable {
    @usableFromInline let transform: @Sendable (Element) -> Flow<NewElement, Failure>
    @usableFromInline let outer: FlowSubscription
    @usableFromInline var inners = FlatMapInners()
    @usableFromInline var waiting = RingBuffer<Element>()
    @usableFromInline var pending = RingBuffer<NewElement>()
    @usableFromInline var lastID: UInt64 = 0
    @usableFromInline var outerFinished = false
    @usableFromInline var isStarting = false
    @usableFromInline var isDelivering = false
    #if DEBUG
    /// Set once the machine has let go of it.
    @usableFromInline var ended = false
    #endif

    @inlinable
    init(transform: @escaping @Sendable (Element) -> Flow<NewElement, Failure>, outer: FlowSubscription) {
        self.transform = transform
        self.outer = outer
    }
}

/// The object behind a ``FlatMapRunning``: its fields as the header, no elements.
@usableFromInline
final class FlatMapRunningBuffer<Element: Sendable, NewElement: Sendable, Failure: Error>:
    ManagedBuffer<FlatMapRunningFields<Element, NewElement, Failure>, Void>
{}
