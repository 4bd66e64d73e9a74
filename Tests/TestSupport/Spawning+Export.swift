// The tests run binaries through Spawning's ChildProcess, as tokendash runs the provider host.
@_exported import Spawning
