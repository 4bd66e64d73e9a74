#import <GoogleRidesharingDriver/GoogleRidesharingDriver.h>

// Returns without ever calling its completion.
@interface NeverCompletes : NSObject <GMTDAuthorization>
@end

@implementation NeverCompletes
- (void)fetchTokenWithContext:(nullable GMTDAuthorizationContext *)authorizationContext
                   completion:(GMTDAuthTokenFetchCompletionHandler)completion {
}
@end
