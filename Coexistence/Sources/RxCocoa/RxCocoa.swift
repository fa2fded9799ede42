// A stand-in for RxSwift 6's `RxCocoa` module: its public type names (.ci/public-names/RxCocoa.txt),
// the UIKit and AppKit ones included, with their generic arity. Nothing here runs: the Rx adapter
// of Migration.md does not call RxCocoa. Compiled in the Swift 5 language mode, as RxCocoa is.

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RxRelay
import RxSwift

func rxCocoaStandIn(_ function: StaticString = #function) -> Never {
    fatalError("RxCocoa stand-in: \(function) is declared for its name only")
}

// MARK: - Traits: SharedSequence, Driver, Signal, ControlEvent, ControlProperty

/// RxCocoa: `SharingStrategyProtocol`.
public protocol SharingStrategyProtocol {
    static var scheduler: SchedulerType { get }
    static func share<Element>(_ source: Observable<Element>) -> Observable<Element>
}

/// RxCocoa: `SharedSequence<SharingStrategy, Element>`.
public struct SharedSequence<SharingStrategy: SharingStrategyProtocol, Element>: SharedSequenceConvertibleType, ObservableConvertibleType {
    let source: Observable<Element>

    public func asObservable() -> Observable<Element> { source }
    public func asSharedSequence() -> SharedSequence<SharingStrategy, Element> { self }
}

/// RxCocoa: `SharedSequenceConvertibleType`.
public protocol SharedSequenceConvertibleType: ObservableConvertibleType {
    associatedtype SharingStrategy: SharingStrategyProtocol
    func asSharedSequence() -> SharedSequence<SharingStrategy, Element>
}

/// RxCocoa: `DriverSharingStrategy`.
public struct DriverSharingStrategy: SharingStrategyProtocol {
    public static var scheduler: SchedulerType { rxCocoaStandIn() }
    public static func share<Element>(_ source: Observable<Element>) -> Observable<Element> { rxCocoaStandIn() }
}

/// RxCocoa: `Driver<Element>`.
public typealias Driver<Element> = SharedSequence<DriverSharingStrategy, Element>

/// RxCocoa: `SignalSharingStrategy`.
public struct SignalSharingStrategy: SharingStrategyProtocol {
    public static var scheduler: SchedulerType { rxCocoaStandIn() }
    public static func share<Element>(_ source: Observable<Element>) -> Observable<Element> { rxCocoaStandIn() }
}

/// RxCocoa: `Signal<Element>`.
public typealias Signal<Element> = SharedSequence<SignalSharingStrategy, Element>

/// RxCocoa: `ControlEventType`.
public protocol ControlEventType: ObservableType {
    func asControlEvent() -> ControlEvent<Element>
}

/// RxCocoa: `ControlEvent<PropertyType>`.
public struct ControlEvent<PropertyType>: ControlEventType {
    public typealias Element = PropertyType

    public init<Ev: ObservableType>(events: Ev) where Ev.Element == Element { rxCocoaStandIn() }
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element { rxCocoaStandIn() }
    public func asObservable() -> Observable<Element> { rxCocoaStandIn() }
    public func asControlEvent() -> ControlEvent<Element> { self }
}

/// RxCocoa: `ControlPropertyType`.
public protocol ControlPropertyType: ObservableType, ObserverType {
    func asControlProperty() -> ControlProperty<Element>
}

/// RxCocoa: `ControlProperty<PropertyType>`.
public struct ControlProperty<PropertyType>: ControlPropertyType {
    public typealias Element = PropertyType

    public init<Values: ObservableType, Sink: ObserverType>(values: Values, valueSink: Sink)
    where Element == Values.Element, Element == Sink.Element { rxCocoaStandIn() }
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element { rxCocoaStandIn() }
    public func asObservable() -> Observable<Element> { rxCocoaStandIn() }
    public func asControlProperty() -> ControlProperty<Element> { self }
    public func on(_ event: Event<Element>) { rxCocoaStandIn() }
}

// MARK: - Delegate proxies, KVO, errors

/// RxCocoa: `DelegateProxy<P, D>`.
open class DelegateProxy<P: AnyObject, D> {
    public init(parentObject: P) {}
}

/// RxCocoa: `DelegateProxyType`.
public protocol DelegateProxyType: AnyObject {
    associatedtype ParentObject: AnyObject
    associatedtype Delegate
}

/// RxCocoa: `HasDelegate`.
public protocol HasDelegate: AnyObject {
    associatedtype Delegate: AnyObject
}

/// RxCocoa: `HasDataSource`.
public protocol HasDataSource: AnyObject {
    associatedtype DataSource: AnyObject
}

/// RxCocoa: `HasPrefetchDataSource`.
public protocol HasPrefetchDataSource: AnyObject {
    associatedtype PrefetchDataSource: AnyObject
}

/// RxCocoa: `KVORepresentable`.
public protocol KVORepresentable {
    associatedtype KVOType
    init?(KVOValue: KVOType)
}

/// RxCocoa: `KeyValueObservingOptions`.
public struct KeyValueObservingOptions: OptionSet {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let initial = KeyValueObservingOptions(rawValue: 1 << 0)
    public static let new = KeyValueObservingOptions(rawValue: 1 << 1)
}

/// RxCocoa: `RxCocoaError`.
public enum RxCocoaError: Swift.Error {
    case unknown
    case invalidOperation(object: Any)
    case itemsNotYetBound(object: Any)
    case invalidPropertyName(object: Any, propertyName: String)
    case invalidObjectOnKeyPath(object: Any, sourceObject: AnyObject, propertyName: String)
    case errorDuringSwizzling
    case castingError(object: Any, targetType: Any.Type)
}

/// RxCocoa: `RxCocoaObjCRuntimeError`.
public enum RxCocoaObjCRuntimeError: Swift.Error {
    case unknown(target: AnyObject)
}

/// RxCocoa: `RxCocoaInterceptionMechanism`.
public enum RxCocoaInterceptionMechanism {
    case unknown
    case kvo
}

/// RxCocoa: `RxCocoaURLError`.
public enum RxCocoaURLError: Swift.Error {
    case unknown
    case nonHTTPResponse(response: URLResponse)
    case httpRequestFailed(response: HTTPURLResponse, data: Data?)
    case deserializationError(error: Swift.Error)
}

// MARK: - Data sources and text input

/// RxCocoa: `SectionedViewDataSourceType`.
public protocol SectionedViewDataSourceType {
    func model(at indexPath: IndexPath) throws -> Any
}

/// RxCocoa: `RxTableViewDataSourceType`.
public protocol RxTableViewDataSourceType {
    associatedtype Element
}

/// RxCocoa: `RxCollectionViewDataSourceType`.
public protocol RxCollectionViewDataSourceType {
    associatedtype Element
}

/// RxCocoa: `RxPickerViewDataSourceType`.
public protocol RxPickerViewDataSourceType {
    associatedtype Element
}

/// RxCocoa: `TextInput<Base>`.
public struct TextInput<Base> {
    public let base: Base
}

/// RxCocoa: `ItemMovedEvent`.
public typealias ItemMovedEvent = (sourceIndex: IndexPath, destinationIndex: IndexPath)
/// RxCocoa: `WillDisplayCellEvent` (a tuple of the cell and its index path in UIKit).
public typealias WillDisplayCellEvent = (cell: AnyObject, indexPath: IndexPath)
/// RxCocoa: `DidEndDisplayingCellEvent`.
public typealias DidEndDisplayingCellEvent = (cell: AnyObject, indexPath: IndexPath)
/// RxCocoa: `WillDisplaySupplementaryViewEvent`.
public typealias WillDisplaySupplementaryViewEvent = (supplementaryView: AnyObject, elementKind: String, at: IndexPath)
/// RxCocoa: `DidEndDisplayingSupplementaryViewEvent`.
public typealias DidEndDisplayingSupplementaryViewEvent = (supplementaryView: AnyObject, elementKind: String, at: IndexPath)

// MARK: - The UIKit / AppKit delegate proxies (names only)

open class RxCollectionViewDataSourcePrefetchingProxy {}
open class RxCollectionViewDataSourceProxy {}
open class RxCollectionViewDelegateProxy {}
open class RxNavigationControllerDelegateProxy {}
open class RxPickerViewDataSourceProxy {}
open class RxPickerViewDelegateProxy {}
open class RxScrollViewDelegateProxy {}
open class RxSearchBarDelegateProxy {}
open class RxSearchControllerDelegateProxy {}
open class RxTabBarControllerDelegateProxy {}
open class RxTabBarDelegateProxy {}
open class RxTableViewDataSourcePrefetchingProxy {}
open class RxTableViewDataSourceProxy {}
open class RxTableViewDelegateProxy {}
open class RxTextFieldDelegateProxy {}
open class RxTextStorageDelegateProxy {}
open class RxTextViewDelegateProxy {}
open class RxWKNavigationDelegateProxy {}
