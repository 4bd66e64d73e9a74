#import <GoogleRidesharingDriver/GoogleRidesharingDriver.h>

// Calls its completion twice for every call.
@interface CompletesTwice : NSObject <GMTDAuthorization>
@end

@implementation CompletesTwice
- (void)fetchTokenWithContext:(nullable GMTDAuthorizationContext *)authorizationContext
                   completion:(GMTDAuthTokenFetchCompletionHandler)completion {
  NSError *error = [NSError errorWithDomain:NSURLErrorDomain code:NSURLErrorBadServerResponse userInfo:nil];
  completion(nil, error);
  completion(nil, error);
}
@end
