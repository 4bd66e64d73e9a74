#import <GoogleRidesharingDriver/GoogleRidesharingDriver.h>

#include <spawn.h>
#include <stdio.h>

extern char **environ;

// Starts a helper that ignores SIGTERM and sleeps for five minutes, as a class that launches a
// daemon would, and says its process ID; nothing of it may outlive the host.
@interface SpawnsAGrandchild : NSObject <GMTDAuthorization>
@end

@implementation SpawnsAGrandchild {
  BOOL _started;
}
- (void)fetchTokenWithContext:(nullable GMTDAuthorizationContext *)authorizationContext
                   completion:(GMTDAuthTokenFetchCompletionHandler)completion {
  if (!_started) {
    _started = YES;
    pid_t pid = 0;
    char *arguments[] = {"/bin/sh", "-c", "trap '' TERM; exec sleep 300", NULL};
    posix_spawn(&pid, "/bin/sh", NULL, NULL, arguments, environ);
    printf("grandchild %d\n", (int)pid);
    fflush(stdout);
  }
  completion(nil, [NSError errorWithDomain:NSURLErrorDomain code:NSURLErrorUserAuthenticationRequired userInfo:nil]);
}
@end
