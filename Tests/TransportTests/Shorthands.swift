import Foundation
import ProviderVocabulary

func consumerEndpoint(_ base: String = "http://backend.test") -> TokenEndpoint { .sampleBackend(.consumer, base: base) }
func driverEndpoint(_ base: String = "http://backend.test") -> TokenEndpoint { .sampleBackend(.driver, base: base) }
func trip(_ id: String) -> TripAuthorizationContext { TripAuthorizationContext(tripID: id) }
func vehicle(_ id: String) -> VehicleAuthorizationContext { VehicleAuthorizationContext(vehicleID: id) }
