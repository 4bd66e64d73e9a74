// tokendash's stand-in for the Consumer SDK's umbrella header: only the token provider's surface,
// as Google's iOS reference documents it:
// https://developers.google.com/maps/documentation/mobility/journey-sharing/on-demand/reference/ios/Protocols/GMTCAuthorization
// https://developers.google.com/maps/documentation/mobility/journey-sharing/on-demand/reference/ios/Classes/GMTCAuthorizationContext
// The quoted form `#import "GoogleRidesharingConsumer/GoogleRidesharingConsumer.h"` finds it too:
// the folder holding this one is on the include path (-I), which quoted imports also search.
#import <Foundation/Foundation.h>

// A Core Foundation constant the samples pass as JSON reading options; GNUstep lacks it.
#ifndef kNilOptions
enum { kNilOptions = 0 };
#define kNilOptions kNilOptions
#endif

NS_ASSUME_NONNULL_BEGIN

/** The completion a provider calls once with a token or an error. */
typedef void (^GMTCAuthTokenFetchCompletionHandler)(NSString *_Nullable token, NSError *_Nullable error);

/** What the SDK's request is for: the trip. Immutable. */
@interface GMTCAuthorizationContext : NSObject
@property(nonatomic, readonly, copy) NSString *tripID;
- (instancetype)init NS_UNAVAILABLE;
@end

/** "Implementations of this protocol must be thread-safe"; "may be invoked from arbitrary queues". */
@protocol GMTCAuthorization <NSObject>
- (void)fetchTokenWithContext:(nullable GMTCAuthorizationContext *)authorizationContext
                   completion:(GMTCAuthTokenFetchCompletionHandler)completion;
@end

NS_ASSUME_NONNULL_END
