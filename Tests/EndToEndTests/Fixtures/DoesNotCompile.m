#import <GoogleRidesharingDriver/GoogleRidesharingDriver.h>

// A semicolon missing, as a customer's file may have.
@interface DoesNotCompile : NSObject <GMTDAuthorization>
@end

@implementation DoesNotCompile
- (void)fetchTokenWithContext:(nullable GMTDAuthorizationContext *)authorizationContext
                   completion:(GMTDAuthTokenFetchCompletionHandler)completion {
  NSString *token = @"never"
  completion(token, nil);
}
@end
