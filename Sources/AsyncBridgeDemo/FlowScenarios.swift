import AsyncBridge
import Dispatch

/// Stream scenarios of a view model over a completion-block API, end to end; then Flow ⇄ async/await.
enum FlowScenarios {
    static func run() async throws {
        try await userThenGroup()
        try await weakFlatMap()
        try await actionRelay()
        try await serialisedRequests()
        try await FlowAsyncScenarios.run()
    }

    /// Waits until `flow` completes, printing each value and the end as "name: …".
    static func drain<Element: Sendable, Failure: Error>(
        _ flow: Flow<Element, Failure>,
        as name: String,
        _ describe: @escaping @Sendable (Element) -> String
    ) async throws {
        try await withCompletion { (done: @escaping @Sendable () -> Void, onCancel) in
            let token = flow.subscribe(onValue: { print("  \(name): \(describe($0))") }, onCompletion: { completion in
                switch completion {
                case .finished: print("  \(name): the flow finished")
                case .failure(let error): print("  \(name): the flow failed: \(error)")
                }
                done()
            })
            onCancel { token.cancel() }   // the awaiting task was cancelled
        }
    }

    // MARK: A completion-block API as flows: user → group, one request each

    static func userThenGroup() async throws {
        section("Completion blocks as flows: user → group with flatMapLatest and share(replay: 1)")
        let manager = UserManager.shared
        let before = manager.requestCount
        let user = Flow { manager.getUser(withUserID: "u2", completion: $0) }.share(replay: 1)
        let group = user
            .map(\.groupID)
            .flatMapLatest { id in Flow { manager.getUsers(withGroupID: id, completion: $0) } }
            .share(replay: 1)
        async let userShown: Void = drain(user, as: "user") { $0.name }
        async let groupShown: Void = drain(group, as: "group") { list($0.map(\.name)) }
        _ = try await (userShown, groupShown)
        print("requests sent: \(manager.requestCount - before) (one user, one group)")
    }

    // MARK: Login → posts without retaining the view model

    final class LoginViewModel: Sendable {
        func loadPosts(for user: User) -> Flow<[String], APIError> {
            .just(["\(user.name)'s first post", "\(user.name)'s second post"])
        }
    }

    static func login(username: String) -> Flow<User, APIError> {
        Flow { UserManager.shared.getUser(withUserID: username, completion: $0) }
    }

    static func weakFlatMap() async throws {
        section("Login → posts with flatMap(weak:): the view model is not retained")
        var model: LoginViewModel? = LoginViewModel()
        try await drain(login(username: "u1").flatMap(weak: model!) { model, user in model.loadPosts(for: user) }, as: "posts") {
            list($0)
        }
        let posts = login(username: "u1").flatMap(weak: model!) { model, user in model.loadPosts(for: user) }
        weak let weakModel = model
        model = nil
        print("view model released while logging in: \(weakModel == nil)")
        try await drain(posts, as: "posts") { list($0) }
        print("  (nothing: the owner is gone, so no posts were loaded)")
    }

    // MARK: An action relay: a switch bound to an API through a bidirectional relay

    static func actionRelay() async throws {
        section("Action relay: a switch and an API bound through a bidirectional relay")
        let relay = BidirectionalLatestValueRelay(value: false)
        let apiCalls = RequestLog()
        let bag = CancellationBag()
        // The work side: every toggle from the view becomes one API call; its answer goes back.
        relay.work.flow
            .flatMapLatest { isOn -> Flow<Bool, Never> in
                apiCalls.increment()
                return .just(isOn)   // the server accepts the change
            }
            .bind(to: relay.work)
            .store(in: bag)
        // The view side: the switch shows what the work side says, and writing that into the
        // switch does not call the API again.
        let shown = RequestLog()
        relay.view.flow.subscribe(onValue: { isOn in
            shown.increment()
            print("  switch shows \(isOn)")
        }, onCompletion: { _ in }).store(in: bag)
        relay.view.accept(true)   // the user flips the switch
        print("API calls: \(apiCalls.count); the switch was updated \(shown.count) times (initial + answer)")
    }

    // MARK: Requests one at a time; a failure does not end the stream

    static func serialisedRequests() async throws {
        section("concatMap serialises requests; asResult() keeps one failure from ending them")
        let manager = UserManager.shared
        let ids = Flow<String, Never>.sequence(["u1", "nobody", "u3"])
        let results = ids.concatMap { id in
            Flow { manager.getUser(withUserID: id, completion: $0) }.asResult()
        }
        try await drain(results, as: "request") { result in
            switch result {
            case .success(let user): return "loaded \(user.name)"
            case .failure(let error): return "failed: \(error) (the stream goes on)"
            }
        }
    }
}
