#import <GoogleRidesharingDriver/GoogleRidesharingDriver.h>

// Logs the token it hands back, as debugging code left in an app does.
@interface LogsItsToken : NSObject <GMTDAuthorization>
@end

@implementation LogsItsToken
- (void)fetchTokenWithContext:(nullable GMTDAuthorizationContext *)authorizationContext
                   completion:(GMTDAuthTokenFetchCompletionHandler)completion {
  NSString *token = @"eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJwcmludGVkLXRva2VuLWZvci10ZXN0In0."
                    @"c2lnbmF0dXJlLW9mLXRoZS1wcmludGVkLXRva2Vu";
  NSLog(@"fetched token %@ for %@", token, authorizationContext.vehicleID);
  completion(nil, [NSError errorWithDomain:NSURLErrorDomain code:NSURLErrorUserAuthenticationRequired userInfo:nil]);
}
@end
