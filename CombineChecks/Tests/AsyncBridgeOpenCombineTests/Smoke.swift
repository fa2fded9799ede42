import AsyncBridge
import AsyncBridgeOpenCombine
import OpenCombine
import Testing

@Test func smoke() { }
