// The test targets run child processes and tests on threads of their own through TestSupport alone.
@_exported import Spawning
@_exported import ThreadExecutor
