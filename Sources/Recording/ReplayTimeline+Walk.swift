import Dashboard
import Fleet
import Foundation
import ProviderVocabulary

extension ReplayTimeline {
    /// Plays the whole recording through as `replay` plays it (the same reducer, the same fleet
    /// aggregate, the same table filters) without a clock, and calls `settled` once for each run
    /// of actions that share one time, with the state they leave. An asciicast and a report are
    /// read from a recording this way, so their frames are the frames the replay shows there.
    public func walk(_ settled: (_ time: Date, _ state: DashboardState, _ actions: ArraySlice<TimedAction>) -> Void) {
        var state = initial
        let aggregate = makeAggregate()
        var first = 0
        for index in actions.indices {
            for action in applied(index, aggregate: aggregate) {
                for effect in Reducer.reduce(&state, action) {
                    if let answer = answer(effect, aggregate: aggregate, now: actions[index].time) {
                        _ = Reducer.reduce(&state, answer)
                    }
                }
            }
            let next = index + 1
            if next == actions.count || actions[next].time != actions[index].time {
                settled(actions[index].time, state, actions[first...index])
                first = next
            }
        }
    }
}
