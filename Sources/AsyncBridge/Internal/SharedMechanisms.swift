// The package's lock and queue for the modules beside it: the Combine bridge (compiled in a
// module of its own against OpenCombine on Linux), AsyncBridgeTesting and the tests. SPI, not
// part of the public API. Each forwards to the one mechanism in this folder and is inlined
// into its caller, so it costs what the mechanism costs.

/// ``Lock`` for other modules.
///
/// ```swift
/// let calls = SharedLock([Int]())
/// calls.withLock { $0.append(1) }
/// ```
@_spi(AsyncBridgeInternals)
public struct SharedLock<State> {
    @usableFromInline let lock: Lock<State>

    /// Creates a lock guarding `initial`.
    ///
    /// ```swift
    /// let calls = SharedLock([Int]())
    /// ```
    @inlinable
    public init(_ initial: State) {
        lock = .make(initial)
    }

    /// Runs `body` with exclusive access to the state. Never call user code inside it.
    ///
    /// ```swift
    /// calls.withLock { $0.append(1) }
    /// ```
    @inlinable
    public func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try lock.withLock(body)
    }
}

// Sendable as `Lock` is: when the state is.
extension SharedLock: Sendable where State: Sendable {}

/// ``LockMutex`` for other modules: a mutex of its own, for an object that keeps its state in
/// its stored properties and calls ``deallocate()`` in its `deinit`.
///
/// ```swift
/// let mutex = SharedMutex()
/// mutex.lock(); count += 1; mutex.unlock()
/// mutex.deallocate()   // in the owner's deinit
/// ```
@_spi(AsyncBridgeInternals)
public struct SharedMutex: Sendable {
    @usableFromInline let mutex: LockMutex

    /// A new, unlocked mutex.
    @inlinable
    public init() {
        mutex = .allocated()
    }

    @inlinable
    public func lock() { mutex.lock() }

    @inlinable
    public func unlock() { mutex.unlock() }

    /// Frees the mutex: once, when nothing can lock it any more.
    @inlinable
    public func deallocate() { mutex.deallocate() }
}

/// ``RingBuffer`` for other modules: a first-in, first-out queue.
///
/// ```swift
/// var queue = SharedQueue<Int>()
/// queue.append(1); queue.append(2)
/// queue.removeFirst()   // 1
/// ```
@_spi(AsyncBridgeInternals)
public struct SharedQueue<Element> {
    @usableFromInline var ring = RingBuffer<Element>()

    /// The most slots an emptied queue keeps.
    @inlinable
    public static var retainedCapacity: Int { RingBuffer<Element>.retainedCapacity }

    /// An empty queue.
    @inlinable
    public init() {}

    @inlinable
    public var count: Int { ring.count }

    @inlinable
    public var isEmpty: Bool { ring.isEmpty }

    /// The slots allocated.
    @inlinable
    public var capacity: Int { ring.capacity }

    @inlinable
    public var first: Element? { ring.first }

    @inlinable
    public mutating func append(_ element: Element) { ring.append(element) }

    /// Takes the first element; the queue must not be empty.
    @inlinable
    public mutating func removeFirst() -> Element { ring.removeFirst() }

    /// Takes the first element, or returns `nil` when the queue is empty.
    @inlinable
    public mutating func popFirst() -> Element? { ring.popFirst() }

    /// Takes the element `offset` places after the first: O(`count - offset`).
    @inlinable
    public mutating func remove(at offset: Int) -> Element { ring.remove(at: offset) }

    /// Empties the queue and returns what it held, to be released later (outside a lock).
    @inlinable
    public mutating func takeAll() -> SharedQueue<Element> {
        SharedQueue(ring: ring.takeAll())
    }

    @inlinable
    init(ring: RingBuffer<Element>) {
        self.ring = ring
    }
}

// Sendable as `RingBuffer` is: when its elements are.
extension SharedQueue: Sendable where Element: Sendable {}
