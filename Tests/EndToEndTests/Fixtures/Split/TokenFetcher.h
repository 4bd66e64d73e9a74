#import <Foundation/Foundation.h>

/// Asks the backend for a token, every time (no cache).
@interface TokenFetcher : NSObject
+ (void)fetchFrom:(NSString *)url completion:(void (^)(NSString *_Nullable, NSError *_Nullable))completion;
@end
