import Testing
import AsyncBridge

@Test func smoke() async throws {
    let f = Future<Int, Never> { c in c(.success(1)) }
    #expect(try await f.value == 1)
    let v: Int = try await withCompletion { (c: @escaping @Sendable (Result<Int, Never>) -> Void) in c(.success(2)) }
    #expect(v == 2)
    let m = try await f.map { $0 + 1 }.flatMap { x in Future { $0(.success(x * 10)) } }.value
    #expect(m == 20)
    let r = await Result { () async throws(CancellationError) -> Int in 3 }
    #expect(try r.get() == 3)
    let a = try await Future { 5 }.value
    #expect(a == 5)
}
