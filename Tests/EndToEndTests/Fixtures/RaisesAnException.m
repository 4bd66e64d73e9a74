#import <GoogleRidesharingDriver/GoogleRidesharingDriver.h>

// Reads past the end of an empty array: an exception nothing catches.
@interface RaisesAnException : NSObject <GMTDAuthorization>
@end

@implementation RaisesAnException
- (void)fetchTokenWithContext:(nullable GMTDAuthorizationContext *)authorizationContext
                   completion:(GMTDAuthTokenFetchCompletionHandler)completion {
  NSArray<NSString *> *tokens = @[];
  completion(tokens[5], nil);
}
@end
