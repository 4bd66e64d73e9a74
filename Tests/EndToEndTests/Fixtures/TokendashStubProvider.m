// The stub class CI builds the Objective-C host's own file against (HostProgramBuildTests): it
// answers every call at once with a fixed string.
#import <GoogleRidesharingDriver/GoogleRidesharingDriver.h>

@interface TokendashStubProvider : NSObject <GMTDAuthorization>
@end

@implementation TokendashStubProvider
- (void)fetchTokenWithContext:(nullable GMTDAuthorizationContext *)authorizationContext
                   completion:(GMTDAuthTokenFetchCompletionHandler)completion {
  completion([@"stub-token-for-" stringByAppendingString:authorizationContext.vehicleID], nil);
}
@end
