#import <GoogleRidesharingDriver/GoogleRidesharingDriver.h>

#include <stdio.h>
#include <unistd.h>

// Reads its stdin in each way an Objective-C class can, as a class waiting for input would, and
// says what it got: the host's requests must never be among it.
@interface ReadsStdin : NSObject <GMTDAuthorization>
@end

@implementation ReadsStdin
- (void)fetchTokenWithContext:(nullable GMTDAuthorizationContext *)authorizationContext
                   completion:(GMTDAuthTokenFetchCompletionHandler)completion {
  char line[256] = "";
  const char *got = fgets(line, sizeof line, stdin);
  char bytes[256];
  ssize_t count = read(0, bytes, sizeof bytes - 1);
  bytes[count > 0 ? count : 0] = 0;
  NSData *data = [[NSFileHandle fileHandleWithStandardInput] readDataToEndOfFile];
  printf("fgets: %s | read(0): %zd | standardInput: %lu bytes | %s%s\n", got ? line : "nil", count,
         (unsigned long)data.length, bytes, got ? line : "");
  fflush(stdout);
  completion(nil, [NSError errorWithDomain:NSURLErrorDomain code:NSURLErrorUserAuthenticationRequired userInfo:nil]);
}
@end
