#import <GoogleRidesharingDriver/GoogleRidesharingDriver.h>
#import "TokenFetcher.h"

// A provider whose fetching sits in a file of its own (TokenFetcher.m), as an app's often does:
// built from both files, `--driver-source` given twice.
@interface SplitProvider : NSObject <GMTDAuthorization>
@end

@implementation SplitProvider
- (void)fetchTokenWithContext:(nullable GMTDAuthorizationContext *)authorizationContext
                   completion:(GMTDAuthTokenFetchCompletionHandler)completion {
  [TokenFetcher fetchFrom:@"INSERT_YOUR_TOKEN_PROVIDER_URL" completion:completion];
}
@end
