// tokendash's stand-in for the Driver SDK's umbrella header: only the token provider's surface,
// as Google's iOS reference documents it:
// https://developers.google.com/maps/documentation/mobility/driver-sdk/on-demand/reference/ios/Protocols/GMTDAuthorization
// https://developers.google.com/maps/documentation/mobility/driver-sdk/scheduled/reference/ios/Classes/GMTDAuthorizationContext
// ("This class has no public initializers": the host makes the contexts, a provider cannot.)
#import <Foundation/Foundation.h>

// A Core Foundation constant the samples pass as JSON reading options; GNUstep lacks it.
#ifndef kNilOptions
enum { kNilOptions = 0 };
#define kNilOptions kNilOptions
#endif

NS_ASSUME_NONNULL_BEGIN

/** The completion a provider calls once with a token or an error. */
typedef void (^GMTDAuthTokenFetchCompletionHandler)(NSString *_Nullable token, NSError *_Nullable error);

/** What the SDK's request is for: the vehicle, and the task when there is one. Immutable. */
@interface GMTDAuthorizationContext : NSObject
@property(nonatomic, readonly, copy) NSString *vehicleID;
@property(nonatomic, readonly, copy, nullable) NSString *taskID;
- (instancetype)init NS_UNAVAILABLE;
@end

/** "Implementations of this protocol must be thread-safe"; called from arbitrary queues. */
@protocol GMTDAuthorization <NSObject>
- (void)fetchTokenWithContext:(nullable GMTDAuthorizationContext *)authorizationContext
                   completion:(GMTDAuthTokenFetchCompletionHandler)completion;
@end

NS_ASSUME_NONNULL_END
